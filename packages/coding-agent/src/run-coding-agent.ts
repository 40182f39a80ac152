import type { LanguageModelV4 } from '@ai-sdk/provider';
import { createFencedToolEmitter, defineTool, type RunChatTurnOptions } from '@toolbus/core';
import { runWriteUpStep } from '@toolbus/core/step';
import {
  createReasoningTextSink,
  createRetypingSink,
  createThinkTool,
  fillPrompt,
  joinNames,
  runNestedAgent,
  THINK_TOOL_NAME,
} from '@toolbus/research';
import type { CodeInterpreter } from '@toolbus/sandbox';
import {
  type ChatMessage,
  omitUndefined,
  type Tool,
  ToolExecutionError,
  type ToolRunContext,
} from '@toolbus/spec';
import * as z from 'zod';
import { BASH_TOOL_NAME, createBashTool } from './bash-tool.ts';
import type { CodingAgentLimits } from './coding-agent-limits.ts';
import { type CodingAgentPrompts, HISTORY_NOTES } from './coding-agent-prompts.ts';
import type { RepositoryHistory } from './open-repository-session.ts';

/** Ends the agent's exploration: the answer is written next. */
export const GENERATE_ANSWER_TOOL_NAME = 'generate_answer';

/** The text the coding agent answers with when it could not produce an answer. */
export const CODING_AGENT_FAILED_TEXT =
  'Coding agent failed to produce an answer. Try a narrower question, or continue without this result.';

/** What one coding-agent run produced. */
export interface CodingAgentOutcome {
  readonly answer: string;
  /** Command cycles the loop ran. */
  readonly cycles: number;
  /** Every command the agent ran, in order. */
  readonly commands: readonly string[];
  /** True when the loop ended by generate_answer; false when a budget (cycles, wall clock) forced the answer. */
  readonly answeredByChoice: boolean;
}

/** Options for {@link runCodingAgent}. */
export interface RunCodingAgentOptions {
  readonly query: string;
  /** How the repository is named to the model (`owner/repo`, or the folder). */
  readonly repository: string;
  readonly model: LanguageModelV4;
  readonly client: CodeInterpreter;
  readonly sessionId: string;
  readonly history: RepositoryHistory;
  readonly listing: string;
  readonly limits: CodingAgentLimits;
  readonly prompts: CodingAgentPrompts;
  /** A model with native reasoning gets no think tool. */
  readonly reasoningModel: boolean;
  /** The coding_agent call's context: its emitter and placement. */
  readonly context: ToolRunContext;
  readonly signal: AbortSignal;
  readonly stream?: RunChatTurnOptions['stream'];
}

function createGenerateAnswerTool(): Tool {
  return defineTool({
    name: GENERATE_ANSWER_TOOL_NAME,
    description: 'Call when you have found enough to answer: the answer is written next.',
    parameters: z.object({}),
    stopsTurn: true,
    emitStart: () => undefined,
    run: () => 'Writing the answer now.',
  });
}

/** The commands and their results, as text for the answer step (tool-call blocks without tools are refused). */
function transcriptOf(messages: readonly ChatMessage[]): { text: string; commands: string[] } {
  const commands: string[] = [];
  const commandOf = new Map<string, string>();
  const parts: string[] = [];
  for (const message of messages) {
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) {
        // A call with invalid arguments never ran: it is not a command.
        if (call.name === BASH_TOOL_NAME && typeof call.arguments.cmd === 'string')
          commandOf.set(call.id, call.arguments.cmd);
      }
    } else if (message.role === 'tool' && message.toolName === BASH_TOOL_NAME) {
      const command = commandOf.get(message.toolCallId);
      if (command === undefined) continue;
      commands.push(command);
      parts.push(`$ ${command}\n${message.content}`);
    }
  }
  return { text: parts.join('\n\n'), commands };
}

/**
 * One coding agent: the nested agent loop over `bash` (in the session), `generate_answer` and, for models
 * without native reasoning, `think_tool`, with a tool call required every cycle, a command-cycle budget and a
 * wall-clock budget. Its visible text streams as reasoning. Then one step without tools writes the answer with
 * `path:line` citations, from the commands' output; it runs whether the model chose to answer or a budget ran
 * out, and its own answer packets are replaced by one `coding-agent-final`.
 */
export async function runCodingAgent(options: RunCodingAgentOptions): Promise<CodingAgentOutcome> {
  const { context, limits, prompts } = options;
  const sink = createFencedToolEmitter(context.emitter, context.placement);
  options.signal.addEventListener('abort', () => sink.fence(), { once: true });
  const tools: Tool[] = [
    createBashTool({
      client: options.client,
      sessionId: options.sessionId,
      commandTimeoutMs: limits.commandTimeoutMs,
      maxOutputCharacters: limits.maxOutputCharacters,
    }),
    ...(options.reasoningModel
      ? []
      : [createThinkTool('Think between commands: what you found, what to look at next. A paragraph.')]),
    createGenerateAnswerTool(),
  ];
  const system = fillPrompt(prompts.agent, {
    repository: options.repository,
    maxCycles: limits.maxCycles,
    history: HISTORY_NOTES[options.history],
    listing: options.listing || '(empty)',
    tools: joinNames(tools.map((tool) => tool.name)),
  });
  const thinking = createReasoningTextSink(sink);
  const loop = await runNestedAgent({
    model: options.model,
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: options.query },
    ],
    tools,
    sink: thinking,
    placement: context.placement,
    maxCycles: limits.maxCycles,
    ...(options.reasoningModel
      ? {}
      : { thinkTool: { name: THINK_TOOL_NAME, maxCycles: limits.maxThinkCycles } }),
    wrapUpAt: Date.now() + limits.wallClockMs,
    signal: options.signal,
    stepTokens: limits.stepTokens,
    // Bash calls of one step run one after another (serial): no cap beyond the step's own calls.
    ...omitUndefined({ stream: options.stream }),
  });
  thinking.close();
  if (options.signal.aborted) throw options.signal.reason;
  if (loop.error) {
    throw new ToolExecutionError({
      code: 'coding_agent_failed',
      message: CODING_AGENT_FAILED_TEXT,
      cause: loop.error,
      emitErrorPacket: true,
    });
  }
  const answeredByChoice = loop.toolOutcomes.some(
    (outcome) => outcome.call.name === GENERATE_ANSWER_TOOL_NAME,
  );
  const { text, commands } = transcriptOf(loop.messages);
  const step = await runWriteUpStep({
    model: options.model,
    system: prompts.answer,
    user: `Repository: ${options.repository}\nTask: ${options.query}\n\nWhat the commands showed:\n\n${text || '(no command ran)'}\n\nAnswer the task: ${options.query}`,
    // The answer goes out once, as coding-agent-final; its reasoning still streams.
    sink: createRetypingSink({
      target: sink,
      retype: (obj) =>
        obj.type === 'message-start' || obj.type === 'message-delta' || obj.type === 'citation-info'
          ? undefined
          : obj,
      at: context.placement,
    }),
    signal: options.signal,
    stream: { ...options.stream, maxOutputTokens: limits.answerTokens },
    failure: { code: 'coding_agent_no_answer', message: CODING_AGENT_FAILED_TEXT },
  });
  const answer = step.answer.trim();
  sink.emit({ type: 'coding-agent-final', answer });
  return { answer, cycles: loop.cycles, commands, answeredByChoice };
}

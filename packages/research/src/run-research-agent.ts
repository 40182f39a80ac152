import type { LanguageModelV4 } from '@ai-sdk/provider';
import { createFencedToolEmitter, type RunChatTurnOptions } from '@toolbus/core';
import { runWriteUpStep } from '@toolbus/core/step';
import type { ChatMessage, CitedDocument, Tool, ToolResponse, ToolRunContext } from '@toolbus/spec';
import { omitUndefined, ToolExecutionError } from '@toolbus/spec';
import { citedDocumentsIn } from './cited-documents-in.ts';
import type { DeepResearchLimits } from './deep-research-limits.ts';
import { type DeepResearchPrompts, fillPrompt, joinNames } from './deep-research-prompts.ts';
import {
  createGenerateReportTool,
  createThinkTool,
  GENERATE_REPORT_TOOL_NAME,
  THINK_TOOL_NAME,
} from './research-tools.ts';
import { asIntermediateReport, createRetypingSink } from './retyping-sink.ts';
import { runNestedAgent } from './run-nested-agent.ts';

/** The text an agent that failed answers the orchestrator with. */
export const RESEARCH_AGENT_FAILED_TEXT =
  'Research agent call failed. Try a different approach or continue without this result.';

/** What one research agent produced. */
export interface ResearchAgentReport {
  readonly task: string;
  /** The intermediate report, with the agent's own citation numbers. */
  readonly report: string;
  /** The documents the report cites, by the agent's numbers. */
  readonly citedDocuments: ReadonlyMap<number, CitedDocument>;
  readonly status: 'completed' | 'timed-out';
  /** Research cycles and tool calls the agent made. */
  readonly cycles: number;
}

/** Options for {@link runResearchAgent}. */
export interface RunResearchAgentOptions {
  readonly task: string;
  readonly model: LanguageModelV4;
  /** The search tools only. */
  readonly tools: readonly Tool[];
  /** The research_agent call's context: its emitter, placement and signal. */
  readonly context: ToolRunContext;
  readonly limits: DeepResearchLimits;
  readonly prompts: DeepResearchPrompts;
  readonly reasoningModel: boolean;
  readonly date: string;
  readonly signal: AbortSignal;
  readonly stream?: RunChatTurnOptions['stream'];
}

/**
 * One research agent: a nested tool loop over the search tools (parallel calls inside, placed under the agent's
 * tab), then an intermediate report whose `[n]` markers stay as the agent numbered them, then the documents it
 * cited. A failed loop or an empty report throws a `ToolExecutionError` with an error packet, so the
 * orchestrator reads the failure text.
 */
export async function runResearchAgent(options: RunResearchAgentOptions): Promise<ResearchAgentReport> {
  const { context, limits, prompts } = options;
  const sink = createFencedToolEmitter(context.emitter, context.placement);
  options.signal.addEventListener('abort', () => sink.fence(), { once: true });
  const tools: Tool[] = [
    ...options.tools,
    ...(options.reasoningModel
      ? []
      : [createThinkTool('Think between research steps: what you found, what is missing. A paragraph.')]),
    createGenerateReportTool('Call when your research is complete: the report is written next.'),
  ];
  const system = fillPrompt(options.reasoningModel ? prompts.researchAgentReasoning : prompts.researchAgent, {
    date: options.date,
    maxCycles: limits.agentResearchCycles,
    tools: joinNames(tools.map((tool) => tool.name)),
  });
  const messages: ChatMessage[] = [
    { role: 'system', content: system },
    { role: 'user', content: options.task },
  ];
  const loop = await runNestedAgent({
    model: options.model,
    messages,
    tools,
    sink,
    placement: context.placement,
    maxCycles: limits.agentResearchCycles,
    ...(options.reasoningModel
      ? {}
      : { thinkTool: { name: THINK_TOOL_NAME, maxCycles: limits.agentThinkCycles } }),
    wrapUpAt: Date.now() + limits.agentForceReportMs,
    signal: options.signal,
    stepTokens: limits.agentStepTokens,
    ...omitUndefined({ stream: options.stream }),
  });
  if (options.signal.aborted) throw options.signal.reason;
  if (loop.error) {
    throw new ToolExecutionError({
      code: 'research_agent_failed',
      message: RESEARCH_AGENT_FAILED_TEXT,
      cause: loop.error,
      emitErrorPacket: true,
    });
  }

  // Searches were made and every one failed: a report "from" them would be the model's memory passed off as
  // research. The agent fails, saying which part of the plan went unresearched.
  const searches = loop.toolOutcomes.filter(
    (outcome) => outcome.call.name !== THINK_TOOL_NAME && outcome.call.name !== GENERATE_REPORT_TOOL_NAME,
  );
  if (searches.length > 0 && searches.every((o) => o.status !== 'success' && o.status !== 'merged')) {
    const causes = [...new Set(searches.map((outcome) => failureText(outcome.response)))].slice(0, 3);
    throw new ToolExecutionError({
      code: 'research_agent_tools_failed',
      message: `${RESEARCH_AGENT_FAILED_TEXT} Every search it made failed (${causes.join('; ')}), so this part of the plan went unresearched: ${options.task}`,
      emitErrorPacket: true,
    });
  }

  // The report step reads what the agent found as text: tool-call blocks without tools are refused by some
  // providers, and the report needs the findings, not the call protocol.
  const findings = loop.messages
    .map((message) =>
      message.role === 'tool' &&
      message.toolName !== THINK_TOOL_NAME &&
      message.toolName !== GENERATE_REPORT_TOOL_NAME
        ? message.content
        : message.role === 'assistant' && message.content.trim()
          ? message.content
          : '',
    )
    .filter((text) => text.trim() !== '')
    .join('\n\n');
  const step = await runWriteUpStep({
    model: options.model,
    system: prompts.intermediateReport,
    user: `Research topic: ${options.task}\n\nWhat the research found:\n\n${findings || '(nothing was found)'}\n\nWrite the report on: ${options.task}`,
    sink: createRetypingSink({ target: sink, retype: asIntermediateReport, at: context.placement }),
    signal: options.signal,
    stream: { ...options.stream, maxOutputTokens: limits.intermediateReportTokens },
    failure: { code: 'research_agent_no_report', message: RESEARCH_AGENT_FAILED_TEXT },
  });
  const citedDocuments = citedDocumentsIn(step.answer, loop.documents);
  sink.emit({ type: 'intermediate-report-cited-documents', documents: [...citedDocuments.values()] });
  return {
    task: options.task,
    report: step.answer,
    citedDocuments,
    status: 'completed',
    cycles: loop.cycles,
  };
}

/** A failed call's cause in one short line, as its rich failure gives it (else the text the model read). */
function failureText(response: ToolResponse): string {
  const text = response.rich?.type === 'failure' ? response.rich.message : response.llmFacing;
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}

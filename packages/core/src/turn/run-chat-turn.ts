import type { LanguageModelV4 } from '@ai-sdk/provider';
import type {
  AssistantToolCall,
  ChatFile,
  ChatMessage,
  CitedDocument,
  Packet,
  Placement,
  StopReason,
  Tool,
  ToolbusError,
  ToolCall,
  ToolDefinition,
} from '@toolbus/spec';
import { type CitationAllocatorOptions, createCitationAllocator } from '../citations/citation-allocator.ts';
import { CitationMarkerScanner } from '../citations/citation-marker-scanner.ts';
import { Emitter } from '../emitter/emitter.ts';
import type { PacketSink } from '../emitter/packet-sink.ts';
import type { StreamModelStepOptions } from '../llm/stream-model-step.ts';
import type { ModelToolChoice } from '../llm/to-language-model-tools.ts';
import { extractToolCallsFromText } from '../recovery/extract-tool-calls-from-text.ts';
import type { ToolCallTextParser } from '../recovery/extracted-tool-call.ts';
import { ToolCallBatch, type ToolCallOutcome } from '../runner/run-tool-calls.ts';
import type { ToolRunHooks } from '../runner/tool-run-hooks.ts';
import { planToolset, type ToolSearchLimits } from '../tool-search/plan-toolset.ts';
import { type LlmStepResult, runLlmStep } from './llm-step.ts';
import { recoverStepToolCalls, recoveryTrigger } from './recover-step-tool-calls.ts';
import { StepPlacement } from './step-placement.ts';

/** The seed's `MAX_LLM_CYCLES`: the last cycle has no tools, so the turn always ends with an answer. */
export const DEFAULT_MAX_CYCLES = 6;

/** The message a model gets when it wrote a tool call that could not be read (if enabled). */
export const DEFAULT_CORRECTIVE_MESSAGE =
  'Your last message tried to call a tool, but the call could not be read. Call the tool again using the ' +
  'tool-calling interface (not text in your answer), with arguments that match its JSON schema.';

/** How text-written tool calls are recovered. */
export interface RecoveryOptions {
  /** Recovery attempts per turn (the seed allows one). Default 1. */
  readonly maxAttempts?: number;
  /** When recovery finds nothing, tell the model what went wrong and let it try again. Default off. */
  readonly correctiveMessage?: string | boolean;
  /** The dialect parsers, in priority order (default: all of them). */
  readonly parsers?: readonly ToolCallTextParser[];
}

/** Options for {@link runChatTurn}. */
export interface RunChatTurnOptions {
  readonly model: LanguageModelV4;
  /** The conversation so far, ending with the user's new message (a system message may come first). */
  readonly messages: readonly ChatMessage[];
  readonly tools?: readonly Tool[];
  /**
   * When the tools exceed these limits, the model gets a `tool_search` tool instead of every definition, and what
   * it finds is loaded into the next cycle (default: {@link DEFAULT_TOOL_SEARCH_LIMITS}; `false`: always send
   * every tool). Given explicitly, the stream starts with a `tool-mode` packet either way; by default only when
   * tool search is used.
   */
  readonly toolSearch?: ToolSearchLimits | false;
  /** Tool choice of the first cycle (`required` or a tool name forces a call); later cycles use `auto`. */
  readonly toolChoice?: ModelToolChoice;
  readonly maxCycles?: number;
  readonly maxConcurrentTools?: number;
  readonly defaultToolTimeoutMs?: number;
  readonly recovery?: RecoveryOptions;
  /** Stops the model stream and the running tools promptly. */
  readonly signal?: AbortSignal;
  /** Documents already cited in the conversation, or where numbering starts. */
  readonly citations?: CitationAllocatorOptions;
  readonly files?: readonly ChatFile[];
  readonly userId?: string;
  readonly extras?: Readonly<Record<string, unknown>>;
  readonly hooks?: ToolRunHooks;
  readonly modelIndex?: number;
  /** Where packets go when the turn runs inside another loop (a sub-agent): its emitter and placement. */
  readonly parent?: { readonly sink: PacketSink; readonly placement: Placement };
  /** Streaming options passed to every model step (timeouts, retries, provider options). */
  readonly stream?: Partial<
    Omit<StreamModelStepOptions, 'model' | 'messages' | 'tools' | 'toolChoice' | 'signal'>
  >;
}

/** What a finished turn produced. */
export interface ChatTurnResult {
  /** The final answer, as the user saw it. */
  readonly answer: string;
  readonly stopReason: StopReason;
  /** The messages this turn added to the conversation (assistant tool calls, tool results, the answer). */
  readonly messages: readonly ChatMessage[];
  /** Documents cited in the answer, by number. */
  readonly citedDocuments: readonly CitedDocument[];
  /** Every document numbered during the turn. */
  readonly documents: ReadonlyMap<number, CitedDocument>;
  readonly toolOutcomes: readonly ToolCallOutcome[];
  readonly cycles: number;
  readonly recoveredToolCalls: number;
  readonly error?: ToolbusError;
}

/** A running turn: iterate it for packets; `result` settles when the turn ends (it never rejects). */
export interface ChatTurn extends AsyncIterable<Packet> {
  readonly result: Promise<ChatTurnResult>;
}

/**
 * Runs one chat turn: cycles of model step → tool calls (started as soon as each is complete) → results in
 * history, until the model answers without calls, a stopping tool ran, or the cycle limit forces an answer.
 * Tool calls the model wrote as text are recovered (bounded per turn). The packet stream ends with `stop`.
 */
export function runChatTurn(options: RunChatTurnOptions): ChatTurn {
  const emitter = new Emitter({ modelIndex: options.modelIndex ?? 0 });
  const sink: PacketSink = options.parent?.sink ?? emitter;
  const result = runTurnLoop(options, sink).finally(() => emitter.close());
  return {
    result,
    [Symbol.asyncIterator]: () => emitter[Symbol.asyncIterator](),
  };
}

async function runTurnLoop(options: RunChatTurnOptions, sink: PacketSink): Promise<ChatTurnResult> {
  const allTools = options.tools ?? [];
  const toolset =
    options.toolSearch === false
      ? { mode: 'all' as const, total: allTools.length, current: () => allTools }
      : planToolset(allTools, options.toolSearch ?? {});
  const maxCycles = Math.max(1, options.maxCycles ?? DEFAULT_MAX_CYCLES);
  const placement = new StepPlacement(options.parent?.placement);
  if (toolset.mode === 'search' || (options.toolSearch !== undefined && allTools.length > 0)) {
    sink.emitAt(placement.at({ turn: 0, tab: 0 }), {
      type: 'tool-mode',
      mode: toolset.mode,
      total: toolset.total,
      offered: toolset.current().length,
    });
  }
  const citations = createCitationAllocator(options.citations ?? {});
  const announcedDocuments = new Set<string>();
  const conversation: ChatMessage[] = [...options.messages];
  const added: ChatMessage[] = [];
  const toolOutcomes: ToolCallOutcome[] = [];
  const userQuery = lastUserText(options.messages);
  let recoveryAttemptsLeft = options.recovery?.maxAttempts ?? 1;
  let recoveredToolCalls = 0;
  let turn = 0;
  let cycles = 0;
  let answer = '';
  let stopReason: StopReason = 'cycle-limit';
  let error: ToolbusError | undefined;

  const append = (message: ChatMessage) => {
    conversation.push(message);
    added.push(message);
  };

  for (let cycle = 0; cycle < maxCycles; cycle += 1) {
    cycles += 1;
    const lastCycle = cycle === maxCycles - 1;
    const cycleTools = lastCycle ? [] : toolset.current();
    const toolChoice: ModelToolChoice = cycle === 0 ? (options.toolChoice ?? 'auto') : 'auto';
    const batch =
      cycleTools.length > 0
        ? new ToolCallBatch(cycleTools, {
            emitter: sink,
            citations,
            userQuery,
            history: conversation,
            files: options.files ?? [],
            ...(options.userId === undefined ? {} : { userId: options.userId }),
            extras: options.extras ?? {},
            ...(options.signal ? { signal: options.signal } : {}),
            ...(options.maxConcurrentTools === undefined
              ? {}
              : { maxConcurrentTools: options.maxConcurrentTools }),
            ...(options.defaultToolTimeoutMs === undefined
              ? {}
              : { defaultTimeoutMs: options.defaultToolTimeoutMs }),
            ...(options.hooks ? { hooks: options.hooks } : {}),
          })
        : undefined;
    const step: LlmStepResult = await runLlmStep({
      model: options.model,
      messages: conversation,
      tools: cycleTools,
      toolChoice,
      turn,
      placement,
      sink,
      citations,
      announcedDocuments,
      batch,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.stream ? { stream: options.stream } : {}),
      citing: true,
    });
    turn = step.nextTurn;

    let calls: readonly ToolCall[] = step.toolCalls;
    if (step.error) {
      await batch?.settle(calls);
      error = step.error;
      stopReason = options.signal?.aborted ? 'user-cancelled' : 'error';
      if (stopReason === 'error') {
        sink.emitAt(placement.at({ turn, tab: 0 }), {
          type: 'error',
          code: error.code,
          message: error.message,
        });
      }
      break;
    }

    const definitions = cycleTools.map((tool) => tool.definition());
    if (calls.length === 0 && recoveryAttemptsLeft > 0 && recoveryTrigger(step, toolChoice, definitions)) {
      recoveryAttemptsLeft -= 1;
      calls = recoverStepToolCalls({
        step,
        definitions,
        turn: step.nextTurn - 1,
        placement,
        ...(options.recovery?.parsers ? { parsers: options.recovery.parsers } : {}),
      });
      recoveredToolCalls += calls.length;
      const corrective = options.recovery?.correctiveMessage;
      if (calls.length === 0 && corrective && recoveryAttemptsLeft > 0 && !lastCycle) {
        append({ role: 'assistant', content: step.rawAnswer });
        append({
          role: 'user',
          content: typeof corrective === 'string' ? corrective : DEFAULT_CORRECTIVE_MESSAGE,
        });
        continue;
      }
    }

    if (calls.length === 0) {
      answer = step.answer;
      if (!answer.trim() && step.rawAnswer.trim() && !holdsToolCall(step.rawAnswer, definitions)) {
        // Empty-answer recovery: the markup filter left nothing visible, but what the model wrote is no tool
        // call (e.g. prose inside a <function_calls> block): show its text rather than an empty answer.
        answer = withoutMarkupTags(step.rawAnswer);
        emitRecoveredAnswer({
          sink,
          placement,
          turn: step.nextTurn - 1,
          answer,
          step,
          citations,
          announcedDocuments,
        });
      }
      append({
        role: 'assistant',
        content: answer,
        ...(step.reasoning ? { reasoning: step.reasoning } : {}),
      });
      // An answer in the last cycle after tool cycles was forced: the model got no tools to call.
      stopReason = lastCycle && cycle > 0 ? 'cycle-limit' : 'finished';
      break;
    }

    const settled = await (batch ?? new ToolCallBatch([], {})).settle(calls);
    toolOutcomes.push(...settled.outcomes);
    const toolCalls: AssistantToolCall[] = calls.map((call) => ({
      id: call.id,
      name: call.name,
      arguments: call.arguments,
    }));
    append({
      role: 'assistant',
      content: step.answer,
      ...(step.reasoning ? { reasoning: step.reasoning } : {}),
      toolCalls,
    });
    for (const message of settled.messages) append(message);
    if (options.signal?.aborted) {
      stopReason = 'user-cancelled';
      break;
    }
    if (settled.stopped) {
      stopReason = 'stopping-tool';
      break;
    }
  }

  sink.emitAt(placement.at({ turn, tab: 0 }), { type: 'stop', reason: stopReason });
  const citedDocuments = citedIn(answer, citations.mapping);
  return {
    answer,
    stopReason,
    messages: added,
    citedDocuments,
    documents: citations.mapping,
    toolOutcomes,
    cycles,
    recoveredToolCalls,
    ...(error ? { error } : {}),
  };
}

function emitRecoveredAnswer(input: {
  sink: PacketSink;
  placement: StepPlacement;
  turn: number;
  answer: string;
  step: LlmStepResult;
  citations: ReturnType<typeof createCitationAllocator>;
  announcedDocuments: Set<string>;
}): void {
  const at = input.placement.at({ turn: input.turn, tab: 0 });
  if (!input.step.answerStarted) {
    input.sink.emitAt(at, { type: 'message-start', finalDocuments: [...input.citations.mapping.values()] });
  }
  for (const number of new CitationMarkerScanner().process(input.answer)) {
    const document = input.citations.mapping.get(number);
    if (document && !input.announcedDocuments.has(document.id)) {
      input.announcedDocuments.add(document.id);
      input.sink.emitAt(at, { type: 'citation-info', citationNumber: number, documentId: document.id });
    }
  }
  input.sink.emitAt(at, { type: 'message-delta', content: input.answer });
}

/**
 * Whether raw output holds a tool call: one can be extracted, or an `<invoke>` is there (a zero-parameter call
 * to an unknown tool is still a call, and never an answer). Stricter than `looksLikeToolCallPayload`, which
 * also counts a bare marker: a marker around prose is not a call.
 */
function holdsToolCall(raw: string, definitions: readonly ToolDefinition[]): boolean {
  return /<invoke\b/i.test(raw) || extractToolCallsFromText(raw, definitions).length > 0;
}

const markupTagPattern =
  /<\/?(?:function_calls|tool_calls?|invoke|parameter|tool_call_begin|tool_call_end)\b[^>]*>|\[TOOL_CALLS\]|<\|python_tag\|>/gi;

/** The text of raw output with tool-call markup tags removed (their content stays). */
function withoutMarkupTags(raw: string): string {
  return raw.replace(markupTagPattern, '').trim();
}

function citedIn(answer: string, mapping: ReadonlyMap<number, CitedDocument>): CitedDocument[] {
  const cited = new Map<number, CitedDocument>();
  for (const number of new CitationMarkerScanner().process(`${answer}\n`)) {
    const document = mapping.get(number);
    if (document) cited.set(number, document);
  }
  return [...cited.values()];
}

function lastUserText(messages: readonly ChatMessage[]): string {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message?.role === 'user') return message.content;
  }
  return '';
}

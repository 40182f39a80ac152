import type { LanguageModelV4 } from '@ai-sdk/provider';
import type {
  ChatFile,
  ChatMessage,
  ElicitationAsker,
  Placement,
  Tool,
  ToolCall,
  ToolDefinition,
} from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import type { CitationAllocatorOptions } from '../citations/citation-allocator.ts';
import { Emitter } from '../emitter/emitter.ts';
import type { PacketSink } from '../emitter/packet-sink.ts';
import type { StreamModelStepOptions } from '../llm/stream-model-step.ts';
import type { ModelToolChoice } from '../llm/to-language-model-tools.ts';
import {
  defaultToolCallMarkupMarkers,
  toolCallMarkupMarkersOf,
} from '../recovery/tool-call-parser-registry.ts';
import { ToolCallBatch } from '../runner/run-tool-calls.ts';
import type { ToolRunHooks } from '../runner/tool-run-hooks.ts';
import { planToolset, type ToolSearchLimits } from '../tool-search/plan-toolset.ts';
import { AnswerWriter } from './answer-writer.ts';
import { correctiveMessageFor, withoutCallMarkup } from './corrective-message.ts';
import { finishWithAnswer } from './final-answer.ts';
import { type LlmStepResult, runLlmStep } from './llm-step.ts';
import { recoverStep, recoveryTrigger } from './recover-step-tool-calls.ts';
import { preferredDialectsOf, type RecoveryOptions } from './recovery-options.ts';
import { runCycleCalls } from './run-cycle-calls.ts';
import type { TurnCycleDirective, TurnCycleEndHook, TurnCycleHook } from './turn-cycle-hook.ts';
import { type ChatTurn, type ChatTurnResult, TurnState } from './turn-state.ts';

export type { ChatTurn, ChatTurnResult } from './turn-state.ts';

/**
 * At most six model calls per turn (Onyx's number, see docs/decisions/differences-from-onyx.md): room for a few
 * rounds of tool calls, and the last cycle has no tools, so the turn always ends with an answer.
 */
export const DEFAULT_MAX_CYCLES = 6;

export { DEFAULT_CORRECTIVE_MESSAGE } from './corrective-message.ts';
export type { RecoveryOptions } from './recovery-options.ts';

/** Options for {@link runChatTurn}. */
export interface RunChatTurnOptions {
  readonly model: LanguageModelV4;
  /** The conversation so far, ending with the user's new message (a system message may come first). */
  readonly messages: readonly ChatMessage[];
  readonly tools?: readonly Tool[];
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
  /** Asks the user a tool's question mid-call (MCP elicitation); absent: such questions are cancelled. */
  readonly elicit?: ElicitationAsker;
  readonly hooks?: ToolRunHooks;
  readonly modelIndex?: number;
  /**
   * Where packets go when the turn runs inside another loop or stream (a sub-agent, a Deep Research stage): its
   * sink; the placement its packets nest under (none: they are top-level); the placement turn the loop's first
   * packet takes (default 0), when the stream already holds earlier turns.
   */
  readonly parent?: {
    readonly sink: PacketSink;
    readonly placement?: Placement;
    readonly firstTurn?: number;
  };
  /** Streaming options passed to every model step (timeouts, retries, provider options). */
  readonly stream?: Partial<
    Omit<StreamModelStepOptions, 'model' | 'messages' | 'tools' | 'toolChoice' | 'signal'>
  >;
  /** A tool whose arguments stream as reasoning (`think_tool`); see `RunLlmStepOptions.reasoningTool`. */
  readonly reasoningTool?: string;
  /** Decides per cycle what it offers and reads, or stops the loop (a sub-agent's budgets and timers). */
  readonly beforeCycle?: TurnCycleHook;
  /** Told each completed cycle and awaited (a sub-agent's checkpoint), and may end the loop. */
  readonly afterCycle?: TurnCycleEndHook;
  /**
   * Answer a native call whose argument text was not valid JSON (though nothing cut it off) without running it,
   * instead of running it on the repaired arguments (default: run; validation catches most). For an agent whose
   * calls must not act on a guess, such as a Deep Research dispatch.
   */
  readonly refuseRepairedCalls?: boolean;
  /**
   * When the tools exceed these limits, the model gets a `tool_search` tool instead of every definition, and what
   * it finds is loaded into the next cycle (default: {@link DEFAULT_TOOL_SEARCH_LIMITS}; `false`: always send
   * every tool). Given explicitly, the stream starts with a `tool-mode` packet either way; by default only when
   * tool search is used.
   */
  readonly toolSearch?: ToolSearchLimits | false;
  /** Tools left out because no provider accepts them, by name and why: the `tool-mode` packet names them. */
  readonly setAsideTools?: readonly { readonly name: string; readonly reason: string }[];
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
    consume: (onPacket) => emitter.consume(onPacket),
  };
}

async function runTurnLoop(options: RunChatTurnOptions, sink: PacketSink): Promise<ChatTurnResult> {
  const state = new TurnState({
    sink,
    messages: options.messages,
    ...omitUndefined({ citations: options.citations }),
    ...omitUndefined({ parentPlacement: options.parent?.placement }),
    recoveryAttempts: options.recovery?.maxAttempts ?? 1,
  });
  state.turn = options.parent?.firstTurn ?? 0;
  const maxCycles = Math.max(1, options.maxCycles ?? DEFAULT_MAX_CYCLES);
  const preferredDialects = preferredDialectsOf(options);
  const allTools = options.tools ?? [];
  const toolset =
    options.toolSearch === false
      ? { mode: 'all' as const, total: allTools.length, current: () => allTools }
      : planToolset(allTools, options.toolSearch ?? {});
  const setAside = options.setAsideTools ?? [];
  if (
    toolset.mode === 'search' ||
    (options.toolSearch !== undefined && allTools.length > 0) ||
    setAside.length > 0
  ) {
    state.sink.emitAt(state.placement.at({ turn: state.turn, tab: 0 }), {
      type: 'tool-mode',
      mode: toolset.mode,
      total: toolset.total,
      offered: toolset.current().length,
      ...(setAside.length > 0 ? { setAside: setAside.map(({ name, reason }) => ({ name, reason })) } : {}),
    });
  }
  let previousToolCalls: readonly ToolCall[] = [];
  for (let cycle = 0; cycle < maxCycles; cycle += 1) {
    const directive = options.beforeCycle?.({ cycle, messages: state.conversation, previousToolCalls });
    if (directive?.stop) break;
    const next = await runCycle({
      options,
      state,
      cycle,
      lastCycle: cycle === maxCycles - 1,
      preferredDialects,
      offeredTools: toolset.current(),
      directive,
      onCalls: (calls) => {
        previousToolCalls = calls;
      },
    });
    if (next === 'stop') break;
  }
  return state.finish();
}

interface CycleInput {
  readonly options: RunChatTurnOptions;
  readonly state: TurnState;
  readonly cycle: number;
  readonly lastCycle: boolean;
  readonly preferredDialects: readonly string[] | undefined;
  /** The tools this cycle offers unless the hook decides otherwise (all, or those tool search loaded). */
  readonly offeredTools: readonly Tool[];
  /** What the caller's `beforeCycle` hook decided for this cycle. */
  readonly directive: TurnCycleDirective | undefined;
  /** Told the calls the cycle runs, for the next cycle's hook. */
  readonly onCalls: (calls: readonly ToolCall[]) => void;
}

/** One cycle: a model step, then recovery, then the tool calls, or the answer that ends the turn. */
async function runCycle(input: CycleInput): Promise<'continue' | 'stop'> {
  const { options, state, lastCycle } = input;
  state.cycles += 1;
  const cycleTools = lastCycle ? [] : (input.directive?.tools ?? input.offeredTools);
  const toolChoice: ModelToolChoice =
    input.directive?.toolChoice ?? (input.cycle === 0 ? (options.toolChoice ?? 'auto') : 'auto');
  const parsers = options.recovery?.parsers;
  const batch = cycleTools.length > 0 ? createCycleBatch(options, state, cycleTools) : undefined;
  const step: LlmStepResult = await runLlmStep({
    model: options.model,
    messages: input.directive?.messages ?? state.conversation,
    tools: cycleTools,
    toolChoice,
    turn: state.turn,
    placement: state.placement,
    sink: state.sink,
    citations: state.citations,
    announcedDocuments: state.announcedDocuments,
    batch,
    ...omitUndefined({
      signal: options.signal,
      stream: options.stream,
      reasoningTool: options.reasoningTool,
    }),
    citing: true,
    ...omitUndefined({ parsers, preferredDialects: input.preferredDialects }),
  });
  state.turn = step.nextTurn;

  if (step.error) {
    const settled = await batch?.settle(step.toolCalls);
    state.error = step.error;
    state.stopReason = options.signal?.aborted ? 'user-cancelled' : 'error';
    // A stream that broke (a dropped connection) loses no more than a stop does: what the user saw is kept.
    keepStoppedStep(state, step, settled);
    if (state.stopReason === 'error') {
      state.sink.emitAt(state.placement.at({ turn: state.turn, tab: 0 }), {
        type: 'error',
        code: step.error.code,
        message: step.error.message,
      });
    }
    return 'stop';
  }

  const definitions = cycleTools.map((tool) => tool.definition());
  let calls: readonly ToolCall[] = step.toolCalls;
  let content = step.answer;
  let cutOff: readonly ToolCall[] = step.cutOffToolCalls;
  if (
    calls.length === 0 &&
    state.recoveryAttemptsLeft > 0 &&
    recoveryTrigger(step, toolChoice, definitions, parsers)
  ) {
    const recovered = recoverCycle({ ...input, step, definitions });
    if (recovered === 'retry') return 'continue';
    ({ calls, content, cutOff } = recovered);
  }

  if (calls.length === 0) {
    state.answer = finishWithAnswer({ state, step, definitions, ...omitUndefined({ parsers }) });
    // An answer in the last cycle after tool cycles was forced: the model got no tools to call.
    state.stopReason = lastCycle && input.cycle > 0 ? 'cycle-limit' : 'finished';
    await options.afterCycle?.({
      cycle: input.cycle,
      toolCalls: [],
      toolOutcomes: [],
      messages: state.added,
      nextTurn: state.turn,
    });
    return 'stop';
  }
  input.onCalls(calls);
  return runCycleCalls({
    options,
    state,
    cycle: input.cycle,
    batch,
    step,
    calls,
    content,
    cutOff,
    tools: cycleTools,
  });
}

/**
 * Recovery of one step's text calls (one attempt of the turn's budget): the calls and the prose around them; a
 * retraction when they were shown; or, when nothing was found and a corrective message is configured, the
 * model is told and the cycle is retried.
 */
function recoverCycle(
  input: CycleInput & { readonly step: LlmStepResult; readonly definitions: readonly ToolDefinition[] },
):
  | { readonly calls: readonly ToolCall[]; readonly content: string; readonly cutOff: readonly ToolCall[] }
  | 'retry' {
  const { options, state, step } = input;
  const parsers = options.recovery?.parsers;
  state.recoveryAttemptsLeft -= 1;
  const recovered = recoverStep({
    step,
    definitions: input.definitions,
    turn: step.nextTurn - 1,
    placement: state.placement,
    ...omitUndefined({ parsers, preferredDialects: input.preferredDialects }),
  });
  state.recoveredToolCalls += recovered.calls.length;
  if (recovered.shown && recovered.prose !== step.answer) retract(state, step, recovered.prose);
  const corrective = options.recovery?.correctiveMessage;
  if (recovered.calls.length === 0 && corrective && state.recoveryAttemptsLeft > 0 && !input.lastCycle) {
    const markers = parsers ? toolCallMarkupMarkersOf(parsers) : defaultToolCallMarkupMarkers;
    state.append({
      role: 'assistant',
      content: withoutCallMarkup(step.rawAnswer, markers),
      ...omitUndefined({ reasoning: step.reasoning || undefined }),
    });
    state.append({
      role: 'user',
      content:
        typeof corrective === 'string'
          ? corrective
          : correctiveMessageFor(step.rawAnswer || step.reasoning, input.definitions),
    });
    return 'retry';
  }
  return { calls: recovered.calls, content: recovered.prose, cutOff: recovered.cutOff };
}

/**
 * A step cut by a stop or a stream failure still goes into the history, as far as it got: the text the user saw, and the calls the
 * model had finished writing with their results (a call the stop cut off has a result saying so; a call still being
 * written never ran and is left out). Without this, a caller that saves the history loses the partial answer.
 */
function keepStoppedStep(
  state: TurnState,
  step: LlmStepResult,
  settled: Awaited<ReturnType<ToolCallBatch['settle']>> | undefined,
): void {
  const calls = settled === undefined ? [] : step.toolCalls;
  const content = step.answer.trim();
  if (calls.length === 0 && content === '') return;
  state.append({
    role: 'assistant',
    content,
    ...omitUndefined({ reasoning: step.reasoning || undefined }),
    ...(calls.length > 0
      ? { toolCalls: calls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments })) }
      : {}),
  });
  if (settled === undefined) {
    state.answer = content;
    return;
  }
  state.toolOutcomes.push(...settled.outcomes);
  for (const message of settled.messages) state.append(message);
  if (calls.length === 0) state.answer = content;
}

function createCycleBatch(
  options: RunChatTurnOptions,
  state: TurnState,
  tools: readonly Tool[],
): ToolCallBatch {
  return new ToolCallBatch(tools, {
    emitter: state.sink,
    citations: state.citations,
    userQuery: state.userQuery,
    history: state.conversation,
    files: options.files ?? [],
    ...omitUndefined({ userId: options.userId }),
    extras: options.extras ?? {},
    ...omitUndefined({
      signal: options.signal,
      maxConcurrentTools: options.maxConcurrentTools,
      defaultTimeoutMs: options.defaultToolTimeoutMs,
      hooks: options.hooks,
      elicit: options.elicit,
    }),
  });
}

/** Text already shown held the calls recovery found: tell every consumer what the message really says. */
function retract(state: TurnState, step: LlmStepResult, prose: string): void {
  new AnswerWriter({
    sink: state.sink,
    citations: state.citations,
    announcedDocuments: state.announcedDocuments,
    citing: true,
    started: step.answerStarted,
  }).replace(state.placement.at({ turn: step.nextTurn - 1, tab: 0 }), prose);
}

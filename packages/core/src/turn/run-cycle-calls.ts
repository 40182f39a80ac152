import type { AssistantToolCall, ChatMessage, Tool, ToolCall } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import { ToolCallBatch } from '../runner/run-tool-calls.ts';
import type { ToolCallOutcome } from '../runner/tool-call-outcome.ts';
import {
  answerCutOffCalls,
  answerUnrunCalls,
  MALFORMED_TOOL_CALL_CODE,
  malformedToolCallMessage,
  stepEndedBadly,
  unrunToolCallResponse,
} from './cut-off-tool-calls.ts';
import type { LlmStepResult } from './llm-step.ts';
import type { RunChatTurnOptions } from './run-chat-turn.ts';
import type { TurnState } from './turn-state.ts';

/**
 * Runs a cycle's calls and puts the exchange into the history: the calls with the prose around them, then one
 * result per call. Calls the output token limit cut off, every call of a step that ended badly, and (when the
 * loop says so) calls with malformed arguments are answered without running (see `answerCutOffCalls`).
 */
export async function runCycleCalls(input: {
  readonly options: RunChatTurnOptions;
  readonly state: TurnState;
  readonly cycle: number;
  readonly batch: ToolCallBatch | undefined;
  readonly step: LlmStepResult;
  readonly calls: readonly ToolCall[];
  readonly content: string;
  /** Calls of `calls` cut off by the output token limit: never run. */
  readonly cutOff: readonly ToolCall[];
  readonly tools: readonly Tool[];
}): Promise<'continue' | 'stop'> {
  const { state, step, options } = input;
  // A step that ended badly (content filter, provider error, unknown): none of its calls runs, and those started
  // while it streamed are stopped, each answered as calls the token limit cut off are.
  const badly = stepEndedBadly(step.finishReason);
  const started = badly
    ? (input.batch?.abandon(input.calls, (call) => unrunToolCallResponse(call, step.finishReason)) ??
      new Set())
    : new Set<string>();
  const unrun = badly ? input.calls.filter((call) => !started.has(call.id)) : input.cutOff;
  // A loop that must not act on a guess (`refuseRepairedCalls`) answers calls whose argument text was not valid
  // JSON with what it read as, instead of running them on the repair.
  const malformed = badly || !options.refuseRepairedCalls ? [] : step.malformedToolCalls;
  const answered = new Map(
    [
      ...answerCutOffCalls(unrun, input.tools, state.sink, step.finishReason),
      ...answerUnrunCalls({
        calls: malformed,
        tools: input.tools,
        sink: state.sink,
        code: MALFORMED_TOOL_CALL_CODE,
        message: malformedToolCallMessage,
      }),
    ].map((outcome) => [outcome.call.id, outcome]),
  );
  const runnable = answered.size > 0 ? input.calls.filter((call) => !answered.has(call.id)) : input.calls;
  const settled = await (input.batch ?? new ToolCallBatch([], {})).settle(runnable);
  // One outcome and one result per call, in call order (the settled ones come in the order of `runnable`).
  const outcomes: ToolCallOutcome[] = [];
  const results: ChatMessage[] = [];
  let next = 0;
  for (const call of input.calls) {
    const cut = answered.get(call.id);
    if (cut === undefined) {
      outcomes.push(settled.outcomes[next]!);
      results.push(settled.messages[next]!);
      next += 1;
      continue;
    }
    outcomes.push(cut);
    results.push({ role: 'tool', toolCallId: call.id, toolName: call.name, content: cut.response.llmFacing });
  }
  state.toolOutcomes.push(...outcomes);
  const toolCalls: AssistantToolCall[] = input.calls.map((call) => ({
    id: call.id,
    name: call.name,
    arguments: call.arguments,
  }));
  state.append({
    role: 'assistant',
    content: input.content,
    ...omitUndefined({ reasoning: step.reasoning || undefined }),
    toolCalls,
  });
  for (const message of results) state.append(message);
  if (options.signal?.aborted) {
    state.stopReason = 'user-cancelled';
    return 'stop';
  }
  const after = await options.afterCycle?.({
    cycle: input.cycle,
    toolCalls: input.calls,
    toolOutcomes: outcomes,
    messages: state.added,
    nextTurn: state.turn,
  });
  if (settled.stopped) {
    state.stopReason = 'stopping-tool';
    return 'stop';
  }
  if (after?.stop) {
    state.stopReason = 'finished';
    return 'stop';
  }
  return 'continue';
}

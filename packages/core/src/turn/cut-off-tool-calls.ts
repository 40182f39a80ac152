import type { Tool, ToolCall, ToolResponse } from '@toolbus/spec';
import type { PacketSink } from '../emitter/packet-sink.ts';
import type { ModelFinishReason } from '../llm/model-stream-event.ts';
import { JsonRead, readJsonValue } from '../recovery/check-json-syntax.ts';
import { failureResponse } from '../runner/failure-responses.ts';
import type { ToolCallOutcome } from '../runner/tool-call-outcome.ts';
import { toolEndPacket } from '../runner/tool-end-packet.ts';

/** The failure code of a call the output token limit cut off (see {@link answerCutOffCalls}). */
export const CUT_OFF_TOOL_CALL_CODE = 'tool_call_cut_off';

/** What the model reads for a call the output token limit cut off: why it did not run, and what to do. */
export function cutOffToolCallMessage(name: string): string {
  return (
    `The call to "${name}" was cut off by the output token limit; its arguments are incomplete, so it was ` +
    'not run. Call it again with shorter arguments.'
  );
}

/** The failure code of a call whose step ended badly (see {@link stepEndedBadly}): answered without running. */
export const UNRUN_TOOL_CALL_CODE = 'tool_call_not_run';

/**
 * Whether a step ended in a way that makes its calls untrustworthy: the provider's content filter stopped it, the
 * provider reported an error, or it ended for a reason it did not give. Its calls are answered without running,
 * as calls the output token limit cut off are: what the model wrote may not be what it meant.
 */
export function stepEndedBadly(finishReason: ModelFinishReason | undefined): boolean {
  return finishReason === 'content-filter' || finishReason === 'error' || finishReason === 'other';
}

const badEndings: Readonly<Record<string, string>> = {
  'content-filter': "the provider's content filter stopped the step",
  error: 'the provider reported an error in the step',
  other: 'the step ended for a reason the provider did not give',
};

/** What the model reads for a call that was not run: why, and what to do. */
export function unrunToolCallMessage(name: string, finishReason: ModelFinishReason | undefined): string {
  const why = finishReason === undefined ? undefined : badEndings[finishReason];
  if (why === undefined) return cutOffToolCallMessage(name);
  return `The call to "${name}" was not run: ${why}, so its arguments may not be what was meant. Call it again if it is still needed.`;
}

/** The result of a call of a step that ended badly: the failure the model reads. */
export function unrunToolCallResponse(
  call: ToolCall,
  finishReason: ModelFinishReason | undefined,
): ToolResponse {
  return failureResponse('call-error', unrunToolCallMessage(call.name, finishReason), UNRUN_TOOL_CALL_CODE);
}

/**
 * Whether a native call's argument text is one complete JSON value. A call whose arguments are not (a string or
 * an object still open, nothing at all) in a step that ended on the output token limit was cut off mid-write:
 * the provider closes every open call when the stream ends, whatever its arguments hold.
 */
export function hasCompleteArguments(rawArguments: string): boolean {
  const read = readJsonValue(rawArguments, 0, rawArguments.length);
  return read.kind === JsonRead.Complete && rawArguments.slice(read.end).trim() === '';
}

/**
 * Answers the tool calls that the output token limit cut off, without running them (fail closed: repaired
 * arguments are a guess at what the model meant, and a tool must never run on a guess). Each gets a failure
 * the model can read, and its consumers see it as a failed tool: `tool-start`, an `error` with the reason,
 * its `tool-end`, then `section-end`, at the call's placement.
 */
export function answerCutOffCalls(
  calls: readonly ToolCall[],
  tools: readonly Tool[],
  sink: PacketSink,
  /** A step that ended badly ({@link stepEndedBadly}): the message and code say so instead of the token limit. */
  finishReason?: ModelFinishReason,
): ToolCallOutcome[] {
  const code = stepEndedBadly(finishReason) ? UNRUN_TOOL_CALL_CODE : CUT_OFF_TOOL_CALL_CODE;
  return answerUnrunCalls({
    calls,
    tools,
    sink,
    code,
    message: (call) => unrunToolCallMessage(call.name, finishReason),
  });
}

/** The failure code of a call whose argument text was not valid JSON (see {@link malformedToolCallMessage}). */
export const MALFORMED_TOOL_CALL_CODE = 'tool_call_malformed';

/**
 * What the model reads for a call whose argument text was not one valid JSON value although nothing cut it off:
 * what it would run on is a repair, a guess, so it is not run; the model sees what its text read as.
 */
export function malformedToolCallMessage(call: ToolCall): string {
  const readAs = JSON.stringify(call.arguments);
  return `The call to "${call.name}" was not run: its arguments were not valid JSON, and a repair (${readAs.length > 200 ? `${readAs.slice(0, 200)}…` : readAs}) may not be what was meant. Call it again with valid JSON arguments.`;
}

/** Answers calls without running them, each with its message: `tool-start`, an `error`, then `section-end`. */
export function answerUnrunCalls(options: {
  readonly calls: readonly ToolCall[];
  readonly tools: readonly Tool[];
  readonly sink: PacketSink;
  readonly code: string;
  readonly message: (call: ToolCall) => string;
}): ToolCallOutcome[] {
  const { tools, sink, code } = options;
  return options.calls.map((call) => {
    const message = options.message(call);
    const displayName = tools.find((tool) => tool.name === call.name)?.displayName ?? call.name;
    sink.emitAt(call.placement, {
      type: 'tool-start',
      toolCallId: call.id,
      toolName: call.name,
      displayName,
    });
    sink.emitAt(call.placement, { type: 'error', code, message });
    const response = failureResponse('call-error', message, code);
    sink.emitAt(call.placement, toolEndPacket(call, 'call-error', response, 0));
    sink.emitAt(call.placement, { type: 'section-end' });
    return { call, status: 'call-error', response };
  });
}

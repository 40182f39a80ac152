import type { Tool, ToolCall } from '@toolbus/spec';
import type { PacketSink } from '../emitter/packet-sink.ts';
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
): ToolCallOutcome[] {
  return calls.map((call) => {
    const message = cutOffToolCallMessage(call.name);
    const displayName = tools.find((tool) => tool.name === call.name)?.displayName ?? call.name;
    sink.emitAt(call.placement, {
      type: 'tool-start',
      toolCallId: call.id,
      toolName: call.name,
      displayName,
    });
    sink.emitAt(call.placement, { type: 'error', code: CUT_OFF_TOOL_CALL_CODE, message });
    const response = failureResponse('call-error', message, CUT_OFF_TOOL_CALL_CODE);
    sink.emitAt(call.placement, toolEndPacket(call, 'call-error', response, 0));
    sink.emitAt(call.placement, { type: 'section-end' });
    return { call, status: 'call-error', response };
  });
}

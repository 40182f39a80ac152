import type { ToolCall, ToolCallStatus, ToolEndPacket, ToolResponse } from '@toolbus/spec';

/**
 * The `tool-end` packet of a call: its status, and what the model read — the result after a success (or where a
 * merged call's results are), else the failure's code and message. The failure comes from the response's typed
 * record, so the message is the one the model was given, never the thrown error's own text.
 */
export function toolEndPacket(
  call: Pick<ToolCall, 'id' | 'name'>,
  status: ToolCallStatus,
  response: ToolResponse,
  durationMs: number,
): ToolEndPacket {
  const base = {
    type: 'tool-end' as const,
    toolCallId: call.id,
    toolName: call.name,
    status,
    durationMs: Math.max(0, Math.round(durationMs)),
  };
  const rich = response.rich;
  if (rich?.type === 'merged') return { ...base, result: response.llmFacing, mergedInto: rich.intoCallId };
  if (status === 'success' || status === 'merged') return { ...base, result: response.llmFacing };
  return {
    ...base,
    error:
      rich?.type === 'failure'
        ? { code: rich.code ?? status, message: rich.message }
        : { code: status, message: response.llmFacing },
  };
}

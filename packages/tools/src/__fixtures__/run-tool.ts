// Runs one tool call through the real runner with a real emitter, collecting the packets it streams: how every
// tool's tests call their tool.
import {
  Emitter,
  type RunToolCallsOptions,
  type RunToolCallsResult,
  runToolCalls,
  type ToolCallOutcome,
} from '@toolbus/core';
import type { Packet, PacketObject, Placement, Tool } from '@toolbus/spec';

/** The call, and whatever else of the runner's options a test sets (files, user, history, citations...). */
export interface RunToolOptions extends Omit<RunToolCallsOptions, 'emitter'> {
  readonly tool: Tool;
  readonly arguments: Record<string, unknown>;
  /** Default `call-1`. */
  readonly callId?: string;
  /** Default turn 0, tab 0. */
  readonly placement?: Placement;
}

/** What one call gave: the runner's result, its one outcome, the model-facing text and the packets streamed. */
export interface RanTool {
  readonly result: RunToolCallsResult;
  readonly outcome: ToolCallOutcome;
  readonly text: string;
  readonly packets: Packet[];
}

export async function runTool(options: RunToolOptions): Promise<RanTool> {
  const { tool, arguments: args, callId, placement, ...runnerOptions } = options;
  const emitter = new Emitter();
  const packets: Packet[] = [];
  const reading = (async () => {
    for await (const packet of emitter) packets.push(packet);
  })();
  const result = await runToolCalls({
    ...runnerOptions,
    calls: [
      { id: callId ?? 'call-1', name: tool.name, arguments: args, placement: placement ?? { turn: 0, tab: 0 } },
    ],
    tools: [tool],
    emitter,
  });
  emitter.close();
  await reading;
  const outcome = result.outcomes[0];
  if (!outcome) throw new Error('the runner answered the call with no outcome');
  return { result, outcome, text: outcome.response.llmFacing, packets };
}

/** The packet objects of one type, narrowed. */
export function objectsOfType<T extends PacketObject['type']>(
  packets: readonly Packet[],
  type: T,
): Extract<PacketObject, { type: T }>[] {
  return packets
    .map((packet) => packet.obj)
    .filter((object): object is Extract<PacketObject, { type: T }> => object.type === type);
}

// Runs one tool call through the real runner with a real emitter, collecting the packets it streams.
import { Emitter, runToolCalls, type RunToolCallsResult } from '@toolbus/core';
import type { Packet, Tool } from '@toolbus/spec';

export async function runTool(options: {
  tool: Tool;
  arguments: Record<string, unknown>;
  startCitationNumber?: number;
  citations?: Parameters<typeof runToolCalls>[2] extends infer O ? O extends { citations?: infer C } ? C : never : never;
}): Promise<{ result: RunToolCallsResult; packets: Packet[]; text: string }> {
  const emitter = new Emitter();
  const packets: Packet[] = [];
  const reading = (async () => {
    for await (const packet of emitter) packets.push(packet);
  })();
  const result = await runToolCalls(
    [{ id: 'call-1', name: options.tool.name, arguments: options.arguments, placement: { turn: 0, tab: 0 } }],
    [options.tool],
    {
      emitter,
      startCitationNumber: options.startCitationNumber,
      citations: options.citations,
    },
  );
  emitter.close();
  await reading;
  return { result, packets, text: result.outcomes[0]?.response.llmFacing ?? '' };
}

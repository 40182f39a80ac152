// Runs one tool call through the real runner with a real emitter, collecting the packets it streams.
import { Emitter, type RunToolCallsOptions, type RunToolCallsResult, runToolCalls } from '@toolbus/core';
import type { Packet, Tool } from '@toolbus/spec';

export async function runTool(options: {
  tool: Tool;
  arguments: Record<string, unknown>;
  startCitationNumber?: number;
  citations?: RunToolCallsOptions['citations'];
}): Promise<{ result: RunToolCallsResult; packets: Packet[]; text: string }> {
  const emitter = new Emitter();
  const packets: Packet[] = [];
  const reading = (async () => {
    for await (const packet of emitter) packets.push(packet);
  })();
  const result = await runToolCalls({ calls: [{ id: 'call-1', name: options.tool.name, arguments: options.arguments, placement: { turn: 0, tab: 0 } }], tools: [options.tool], emitter,
      startCitationNumber: options.startCitationNumber,
      citations: options.citations });
  emitter.close();
  await reading;
  return { result, packets, text: result.outcomes[0]?.response.llmFacing ?? '' };
}

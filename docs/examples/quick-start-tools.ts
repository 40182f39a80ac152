import { defineTool, Emitter, runToolCalls, ToolCallError } from 'toolbus';
import * as z from 'zod';

const forecasts: Record<string, string> = { Oslo: 'light snow, -3 °C', Lisbon: 'sunny, 17 °C' };

const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: z.object({ city: z.string() }),
  async run({ city }) {
    const forecast = forecasts[city];
    // A ToolCallError is the model's mistake: its modelMessage tells the model how to call again.
    if (!forecast) {
      throw new ToolCallError({
        code: 'unknown_city',
        message: `no forecast for ${city}`,
        modelMessage: `No forecast for "${city}". Known cities: ${Object.keys(forecasts).join(', ')}.`,
      });
    }
    return `The weather in ${city}: ${forecast}`;
  },
});

// One cycle's calls, as a model produced them: run in parallel, each with a timeout and its own packets.
const emitter = new Emitter();
const printing = (async () => {
  for await (const packet of emitter) {
    if (packet.obj.type === 'tool-end')
      console.log(packet.obj.toolCallId, packet.obj.status, packet.obj.error?.code ?? '');
  }
})();
const { messages } = await runToolCalls({
  calls: [
    { id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' }, placement: { turn: 0, tab: 0 } },
    { id: 'call_2', name: 'get_weather', arguments: { city: 42 }, placement: { turn: 0, tab: 1 } },
    { id: 'call_3', name: 'no_such_tool', arguments: {}, placement: { turn: 0, tab: 2 } },
  ],
  tools: [weather],
  emitter,
});
emitter.close();
await printing;
// `messages`: one tool result per call id, ready for history. call_2 tells the model what was wrong with its
// arguments and shows a correct example call; call_3 tells it which tools exist. Nothing is dropped silently.
for (const message of messages) if (message.role === 'tool') console.log(message.toolCallId, message.content);

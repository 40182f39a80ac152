import { type ChatMessage, defineTool, resolveLanguageModel, runChatTurn } from 'toolbus';
import * as z from 'zod';

const orders = defineTool({
  name: 'find_order',
  description: 'Finds an order by id',
  parameters: z.object({ id: z.string() }),
  run: ({ id }) => `Order ${id}: 2 chairs, shipped on Monday.`,
});
const model = resolveLanguageModel(process.env.TOOLBUS_MODEL);

// The conversation is yours: keep it, and send it with the next question.
const history: ChatMessage[] = [{ role: 'user', content: 'Where is order 7?' }];
const first = runChatTurn({ model, messages: history, tools: [orders] });
for await (const _packet of first); // or show the packets
const result = await first.result;
for (const outcome of result.toolOutcomes) console.log(`${outcome.call.name}: ${outcome.status}`);
history.push(...result.messages); // the assistant's tool calls, their results, the answer

history.push({ role: 'user', content: 'And what was in it?' });
const second = runChatTurn({ model, messages: history, tools: [orders] });
for await (const _packet of second);
console.log((await second.result).answer);

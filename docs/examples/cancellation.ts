import { type ChatMessage, defineTool, resolveLanguageModel, runChatTurn } from 'toolbus';
import * as z from 'zod';

const slowReport = defineTool({
  name: 'build_report',
  description: 'Builds a long report',
  parameters: z.object({ topic: z.string() }),
  // The tool gets the turn's abort signal: pass it on to whatever it waits for.
  run: ({ topic }, { signal }) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => resolve(`Report on ${topic}`), 60_000);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(signal.reason);
      });
    }),
});
const model = resolveLanguageModel(process.env.TOOLBUS_MODEL);
const history: ChatMessage[] = [{ role: 'user', content: 'Build the sales report.' }];

const controller = new AbortController();
const turn = runChatTurn({ model, messages: history, tools: [slowReport], signal: controller.signal });
for await (const { obj } of turn) {
  if (obj.type === 'tool-start') controller.abort(); // the user pressed Stop
  if (obj.type === 'tool-end') console.log(`${obj.toolName}: ${obj.status}`);
}
const stopped = await turn.result;
console.log(`stop reason: ${stopped.stopReason}`);

// The stopped turn's history pairs every call with a result, so the conversation goes on.
history.push(...stopped.messages, { role: 'user', content: 'Never mind, just say hi.' });
const next = runChatTurn({ model, messages: history, tools: [slowReport] });
for await (const _packet of next);
console.log((await next.result).answer);

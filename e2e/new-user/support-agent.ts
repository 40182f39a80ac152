// The program issue 33 watched a new user build, written the way a new user writes it: from README.md and
// docs/guide/library.md only (e2e/packed-install.test.ts checks that every name imported from toolbus is in
// them), then built with tsc and run on the packed packages. A custom tool, two tools in parallel with one
// failing, a follow-up turn, an MCP server over stdio, a call written as text, and a cancelled turn that the
// conversation continues after.
import { fileURLToPath } from 'node:url';
import {
  type ChatMessage,
  connectMcpServer,
  defineTool,
  resolveLanguageModel,
  runChatTurn,
  ToolExecutionError,
} from 'toolbus';
import * as z from 'zod';

const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: z.object({ city: z.string() }),
  run: ({ city }) => `The weather in ${city}: light snow, -3 °C`,
});
const stock = defineTool({
  name: 'check_stock',
  description: 'How many of a product are in stock',
  parameters: z.object({ product: z.string() }),
  run: () => {
    throw new ToolExecutionError({ code: 'stock_unavailable', message: 'The stock system is down.' });
  },
});
const report = defineTool({
  name: 'build_report',
  description: 'Builds a long report',
  parameters: z.object({ topic: z.string() }),
  run: ({ topic }, { signal }) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => resolve(`Report on ${topic}`), 60_000);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(signal.reason);
      });
    }),
});

const entry = fileURLToPath(import.meta.resolve('@modelcontextprotocol/server-everything/dist/index.js'));
const everything = await connectMcpServer({
  id: 'everything',
  name: 'everything',
  transport: { type: 'stdio', command: process.execPath, args: [entry, 'stdio'] },
});
const model = resolveLanguageModel(process.env.TOOLBUS_MODEL);
const tools = [weather, stock, report, ...(await everything.tools())];
const history: ChatMessage[] = [];

/** One turn of the conversation: prints each tool's outcome and the answer, and keeps the history. */
async function ask(question: string, options: { readonly stopAtFirstTool?: boolean } = {}): Promise<void> {
  console.log(`> ${question}`);
  history.push({ role: 'user', content: question });
  const controller = new AbortController();
  const turn = runChatTurn({ model, messages: history, tools, signal: controller.signal });
  for await (const { obj } of turn) {
    if (obj.type === 'tool-start' && options.stopAtFirstTool) controller.abort(); // the user pressed Stop
    if (obj.type === 'tool-end')
      console.log(`  ${obj.toolName}: ${obj.status} — ${obj.result ?? obj.error?.message}`);
  }
  const result = await turn.result;
  history.push(...result.messages);
  console.log(`< ${result.answer} [${result.stopReason}, ${result.recoveredToolCalls} recovered]`);
}

try {
  await ask('Weather in Oslo, and is the blue chair in stock?');
  await ask('What did the weather tool say, exactly?');
  await ask('Echo "hello" with the echo tool.');
  await ask('Weather in Lisbon?');
  await ask('Build the sales report.', { stopAtFirstTool: true });
  await ask('Never mind, just say hi.');
} finally {
  await everything.close();
}

import { fileURLToPath } from 'node:url';
import { connectMcpServer, resolveLanguageModel, runChatTurn } from 'toolbus';

// An MCP server over stdio: here the reference server, installed with `npm install @modelcontextprotocol/server-everything`
// (or command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything', 'stdio']).
const entry = fileURLToPath(import.meta.resolve('@modelcontextprotocol/server-everything/dist/index.js'));
const connection = await connectMcpServer({
  id: 'everything',
  name: 'everything',
  transport: { type: 'stdio', command: process.execPath, args: [entry, 'stdio'] },
});
try {
  const turn = runChatTurn({
    model: resolveLanguageModel(process.env.TOOLBUS_MODEL),
    messages: [{ role: 'user', content: 'Echo "hello" with the echo tool.' }],
    tools: [...(await connection.tools())], // MCP tools are toolbus tools: mix them with your own
  });
  for await (const { obj } of turn) {
    if (obj.type === 'tool-end')
      console.log(`${obj.toolName}: ${obj.status} — ${obj.result ?? obj.error?.message}`);
  }
  console.log((await turn.result).answer);
} finally {
  await connection.close();
}

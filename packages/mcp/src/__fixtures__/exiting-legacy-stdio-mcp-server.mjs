// A real 2025-11-25 MCP server over stdio (the 1.x SDK) that behaves like the older servers that EXIT on any request
// they do not know, such as the 2026-07-28 `server/discover` probe. Each start appends a line to the file named by
// MCP_SPAWN_LOG, so a test can count how many times a client started it.
import { appendFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

if (process.env.MCP_SPAWN_LOG) appendFileSync(process.env.MCP_SPAWN_LOG, `legacy ${process.pid}\n`);

const known = new Set(['initialize', 'notifications/initialized', 'ping', 'tools/list', 'tools/call']);
const server = new Server({ name: 'exiting-legacy', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{ name: 'twice', description: 'Doubles a number.', inputSchema: { type: 'object', properties: { n: { type: 'number' } } } }],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => ({
  content: [{ type: 'text', text: String(Number(request.params.arguments?.n) * 2) }],
}));
const transport = new StdioServerTransport();
await server.connect(transport);
const handle = transport.onmessage;
transport.onmessage = (message, extra) => {
  if ('method' in message && !known.has(message.method)) {
    process.stderr.write(`unknown method ${message.method}, exiting\n`);
    process.exit(2);
  }
  handle?.(message, extra);
};

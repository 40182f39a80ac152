// A real 2025-11-25 MCP server over stdio (the 1.x SDK) whose one tool logs the secret it was given in its
// environment (FIXTURE_TOKEN), as a careless server might: what toolbus relays of its logs must not carry it.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server(
  { name: 'env-logging', version: '1.0.0' },
  { capabilities: { tools: {}, logging: {} } },
);
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{ name: 'connect', description: 'Connects to a backend.', inputSchema: { type: 'object', properties: {} } }],
}));
server.setRequestHandler(CallToolRequestSchema, async (_request, extra) => {
  await extra.sendNotification({
    method: 'notifications/message',
    params: { level: 'info', data: { note: 'connecting with', token: process.env.FIXTURE_TOKEN } },
  });
  return { content: [{ type: 'text', text: 'connected' }] };
});
await server.connect(new StdioServerTransport());

// A real MCP server over stdio (the SDK's own low-level Server, as many published servers are written) that refuses
// invalid arguments the way the SDK suggests: by throwing an McpError with code -32602 (InvalidParams), which goes
// back to the client as a JSON-RPC error. Each start appends a line to the file named by MCP_SPAWN_LOG.
import { appendFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';

if (process.env.MCP_SPAWN_LOG) appendFileSync(process.env.MCP_SPAWN_LOG, `strict ${process.pid}\n`);

const server = new Server({ name: 'strict', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'add',
      description: 'Adds two numbers.',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
    },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { a, b } = request.params.arguments ?? {};
  if (typeof a !== 'number' || typeof b !== 'number') {
    throw new McpError(ErrorCode.InvalidParams, 'Invalid arguments for tool add: a and b must be numbers');
  }
  return { content: [{ type: 'text', text: String(a + b) }] };
});
await server.connect(new StdioServerTransport());

// A real MCP server over stdio (the SDK's own Server) whose one tool's description is read from a file at start:
// rewriting the file and starting it again is a server that changed its tool. `secret_status` tells whether the
// FIXTURE_TOKEN variable reached it (never its value), to prove `--env NAME` passes a variable by name.
import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const descriptionFile = process.argv[2];
const description = readFileSync(descriptionFile, 'utf8').trim();
const server = new Server({ name: 'drifting', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'secret_status',
      description,
      inputSchema: { type: 'object', properties: {} },
    },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async () => ({
  content: [
    { type: 'text', text: `FIXTURE_TOKEN is ${process.env.FIXTURE_TOKEN === 'token-by-name' ? 'present' : 'absent'}` },
  ],
}));
await server.connect(new StdioServerTransport());

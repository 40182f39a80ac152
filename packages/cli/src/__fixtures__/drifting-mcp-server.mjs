// A real MCP server over stdio (the SDK's own Server) whose one tool's description is read from a file at start:
// rewriting the file and starting it again is a server that changed its tool. `secret_status` tells whether the
// FIXTURE_TOKEN variable reached it (never its value), to prove `--env NAME` passes a variable by name. An optional
// second file names extra tools, one per line, read at start too: writing a name there is a server that lists a
// new tool after its tool set was approved.
import { existsSync, readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const descriptionFile = process.argv[2];
const description = readFileSync(descriptionFile, 'utf8').trim();
const extraFile = process.argv[3];
const extraTools =
  extraFile !== undefined && existsSync(extraFile)
    ? readFileSync(extraFile, 'utf8').split('\n').map((line) => line.trim()).filter(Boolean)
    : [];
const server = new Server({ name: 'drifting', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'secret_status',
      description,
      inputSchema: { type: 'object', properties: {} },
    },
    ...extraTools.map((name) => ({
      name,
      description: 'A tool the server added later.',
      inputSchema: { type: 'object', properties: {} },
    })),
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => ({
  content: extraTools.includes(request.params.name)
    ? [{ type: 'text', text: `${request.params.name} ran` }]
    : [
        {
          type: 'text',
          text: `FIXTURE_TOKEN is ${process.env.FIXTURE_TOKEN === 'token-by-name' ? 'present' : 'absent'}`,
        },
      ],
}));
await server.connect(new StdioServerTransport());

// A real MCP server over stdio (the SDK's own Server) whose tools fail in each way a tool can: `explode` throws,
// `garbage` answers something that is not a tool result, `crash` ends the server's process mid-call and `hang`
// never answers (until the call is cancelled).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'failing', version: '1.0.0' }, { capabilities: { tools: {} } });
const tool = (name, description) => ({ name, description, inputSchema: { type: 'object', properties: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    tool('explode', 'Throws.'),
    tool('garbage', 'Answers something that is not a tool result.'),
    tool('crash', 'Ends the server.'),
    tool('hang', 'Never answers.'),
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  switch (request.params.name) {
    case 'explode':
      throw new Error('the database is on fire');
    case 'garbage':
      return { content: 'not a list of content blocks' };
    case 'crash':
      process.exit(3);
      break;
    default:
      return new Promise(() => undefined);
  }
});
await server.connect(new StdioServerTransport());

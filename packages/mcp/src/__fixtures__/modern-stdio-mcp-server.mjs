// A real MCP server over stdio that speaks ONLY the 2026-07-28 revision (the official v2 server SDK's `serveStdio`
// with `legacy: 'reject'`): a client that sends `initialize` is refused.
import { fromJsonSchema, McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

serveStdio(
  () => {
    const server = new McpServer({ name: 'modern-stdio', version: '2.0.0' }, { capabilities: { tools: {} } });
    server.registerTool(
      'shout',
      {
        description: 'Upper-cases a text.',
        inputSchema: fromJsonSchema({
          type: 'object',
          properties: { text: { type: 'string' } },
          required: ['text'],
        }),
      },
      async ({ text }) => ({ content: [{ type: 'text', text: String(text).toUpperCase() }] }),
    );
    return server;
  },
  { legacy: 'reject' },
);

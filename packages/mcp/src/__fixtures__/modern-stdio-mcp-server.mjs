// A real MCP server over stdio that speaks ONLY the 2026-07-28 revision (the official v2 server SDK's `serveStdio`
// with `legacy: 'reject'`): a client that sends `initialize` is refused. Each start appends a line to the file named
// by MCP_SPAWN_LOG, so a test can count how many times a client started it.
import { appendFileSync } from 'node:fs';
import { fromJsonSchema, McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

if (process.env.MCP_SPAWN_LOG) appendFileSync(process.env.MCP_SPAWN_LOG, `modern ${process.pid}\n`);

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

// Both protocol revisions side by side: a server that speaks ONLY 2026-07-28 (the official v2 server SDK, no
// `initialize`, no sessions) over Streamable HTTP and over stdio, next to the 2025-11-25 server of the other tests.
// Every request still goes through the given fetch with toolbus's headers; list_changed still reaches listeners.
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTestRunContext } from '@toolbus/core/testing';
import { createRecordingFetch } from './__fixtures__/recording-fetch.ts';
import { withMcpConnection } from './__fixtures__/with-mcp-connection.ts';
import { connectMcpServer } from './connect-mcp-server.ts';
import type { McpToolDescriptor } from './mcp-tool-descriptor.ts';
import { type ModernMcpServer, type ModernTool, startModernMcpServer } from './testing/modern-mcp-server.ts';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '__fixtures__');

const echo: ModernTool = {
  name: 'echo',
  description: 'Echoes a text.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  call: (args) => ({ content: [{ type: 'text', text: `echo: ${String(args.text)}` }] }),
};

describe('a server that speaks only 2026-07-28', () => {
  let server: ModernMcpServer;
  before(async () => {
    server = await startModernMcpServer([echo]);
  });
  after(() => server.close());

  test('a 2025-era client is refused by it (so the tests below prove 2026-07-28 was negotiated)', async () => {
    const client = new LegacyClient({ name: 'old', version: '1.0.0' });
    await assert.rejects(() => client.connect(new LegacyTransport(new URL(server.url))));
    await client.close().catch(() => undefined);
  });

  test('Streamable HTTP: lists and calls tools over 2026-07-28, sessionless, every request through the fetch with the configured headers', async () => {
    const recording = createRecordingFetch();
    const before = server.requests.length;
    await withMcpConnection(
      {
        id: 'modern',
        name: 'modern',
        transport: { type: 'streamable-http', url: server.url },
        auth: { type: 'headers', headers: { 'X-Api-Key': '{api_key}' }, credentials: { api_key: 'k-123' } },
      },
      { fetch: recording.fetch, requestHeaders: { 'X-Tenant': 'acme', Cookie: 'sid=secret' } },
      async (connection) => {
        const tools = await connection.tools();
        assert.deepEqual(
          tools.map((tool) => tool.name),
          ['echo'],
        );
        const { context, call } = createTestRunContext({ allowCitations: false });
        const result = await tools[0]?.run(call('echo', { text: 'hi' }), context);
        assert.equal(result?.llmFacing, 'echo: hi');
        const received = server.requests.slice(before);
        assert.ok(received.length >= 3);
        assert.equal(recording.records.length, received.length);
        for (const request of received) {
          assert.equal(request.headers['mcp-protocol-version'], '2026-07-28');
          assert.equal(request.headers['mcp-session-id'], undefined);
          assert.equal(request.headers['x-api-key'], 'k-123');
          assert.equal(request.headers['x-tenant'], 'acme');
          assert.equal(request.headers.cookie, undefined);
        }
        // The 2026-07-28 routing headers are sent with each call.
        assert.ok(received.some((request) => request.headers['mcp-method'] === 'tools/call'));
        assert.ok(received.some((request) => request.headers['mcp-name'] === 'echo'));
      },
    );
  });

  test('tools/list_changed reaches listeners over the subscriptions/listen stream', async () => {
    const connection = await connectMcpServer(
      { id: 'modern', name: 'modern', transport: { type: 'streamable-http', url: server.url } },
      { fetch: createRecordingFetch().fetch },
    );
    try {
      await connection.listTools();
      const changed = new Promise<readonly McpToolDescriptor[]>((resolve) =>
        connection.onToolsChanged(resolve),
      );
      const added: ModernTool = {
        name: 'added',
        call: () => ({ content: [{ type: 'text', text: 'new' }] }),
      };
      // The subscription opens in the background after connect: publish until the listener hears it.
      const fresh = await Promise.race([
        changed,
        (async () => {
          await server.setTools([echo, added]);
          for (let attempt = 0; attempt < 50; attempt += 1) {
            await new Promise((resolve) => setTimeout(resolve, 100));
            await server.setTools([echo, added]);
          }
          return await changed;
        })(),
      ]);
      assert.deepEqual(
        fresh.map((tool) => tool.name),
        ['echo', 'added'],
      );
    } finally {
      await server.setTools([echo]);
      await connection.close();
    }
  });
});

describe('stdio', () => {
  const servers = [
    {
      label: 'a stdio server that speaks only 2026-07-28 works',
      id: 'modern-stdio',
      script: 'modern-stdio-mcp-server.mjs',
      tool: 'shout',
      args: { text: 'hi' },
      expected: 'HI',
    },
    {
      label: 'a 2025-11-25 stdio server still works',
      id: 'legacy-stdio',
      script: 'strict-arguments-mcp-server.mjs',
      tool: 'add',
      args: { a: 2, b: 3 },
      expected: '5',
    },
  ];
  for (const { label, id, script, tool: toolName, args, expected } of servers) {
    test(label, async () => {
      await withMcpConnection(
        {
          id,
          name: id,
          transport: { type: 'stdio', command: process.execPath, args: [join(fixtures, script)] },
        },
        {},
        async (connection) => {
          const tools = await connection.tools();
          const { context, call } = createTestRunContext({ allowCitations: false });
          const result = await tools
            .find((tool) => tool.name === toolName)
            ?.run(call(toolName, args), context);
          assert.equal(result?.llmFacing, expected);
        },
      );
    });
  }
});

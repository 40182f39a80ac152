// The endpoint speaks 2026-07-28 too: a client pinned to that revision (no initialize, no session) lists and calls a
// persona's tools, and every one of its requests stands alone (no session id is ever issued), so any replica can
// answer it. The 2025-11-25 client of mcp-endpoint.test.ts keeps working next to it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Storage } from '@toolbus/storage';
import { lookupToolFactories, openTestStorage } from '../__fixtures__/test-server.ts';
import { createServer, type ToolbusServer } from '../create-server.ts';
import { type ListeningServer, listen } from '../listen.ts';

let storage: Storage;
let server: ToolbusServer;
let http: ListeningServer;

before(async () => {
  ({ storage } = await openTestStorage());
  server = await createServer({
    storage,
    auth: 'api-keys',
    defaultModel: 'openai:gpt-4.1',
    builtInToolFactories: () => lookupToolFactories(),
  });
  http = await listen(server, { port: 0 });
});
after(async () => {
  await http.close();
  await storage.close();
});

test('a 2026-07-28 client lists and calls tools, sessionless', async () => {
  const user = await storage.users.create({ email: 'modern@example.com' });
  const { key } = await server.access.createApiKey(
    {
      user,
      role: 'user',
      scopes: ['mcp', 'keys'],
      via: 'local',
      organization: { id: 'default', role: 'member' },
    },
    { name: 'mcp', scopes: ['mcp'] },
  );
  const seen: { version: string | null; session: string | null }[] = [];
  const client = new Client(
    { name: 'modern-client', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${http.url}/v1/mcp/default`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      seen.push({
        version: new Headers(init?.headers).get('mcp-protocol-version'),
        session: response.headers.get('mcp-session-id'),
      });
      return response;
    },
  });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['lookup'],
    );
    const result = await client.callTool({ name: 'lookup', arguments: { query: 'refunds' } });
    assert.equal(result.isError, false);
    assert.match(
      (result.content as { text: string }[])[0]?.text ?? '',
      /Fact about refunds: refunds take 14 days/,
    );
    assert.ok(seen.length >= 3);
    for (const exchange of seen) {
      assert.equal(exchange.version, '2026-07-28');
      assert.equal(exchange.session, null);
    }
  } finally {
    await client.close();
  }
});

// The endpoint speaks 2026-07-28 too: a client pinned to that revision (no initialize, no session) lists and calls a
// persona's tools, and every one of its requests stands alone (no session id is ever issued), so any replica can
// answer it. The 2025-11-25 client of mcp-endpoint.test.ts keeps working next to it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { assertServesLookup } from '../__fixtures__/assert-serves-lookup.ts';
import { type McpEndpointServer, startMcpEndpointServer } from '../__fixtures__/mcp-endpoint-server.ts';

let endpoint: McpEndpointServer;

before(async () => {
  endpoint = await startMcpEndpointServer();
});
after(() => endpoint.close());

test('a 2026-07-28 client lists and calls tools, sessionless', async () => {
  const key = await endpoint.keyFor('modern@example.com', ['mcp']);
  const seen: { version: string | null; session: string | null }[] = [];
  const client = new Client(
    { name: 'modern-client', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${endpoint.url}/v1/mcp/default`), {
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
    await assertServesLookup(client);
    assert.ok(seen.length >= 3);
    for (const exchange of seen) {
      assert.equal(exchange.version, '2026-07-28');
      assert.equal(exchange.session, null);
    }
  } finally {
    await client.close();
  }
});

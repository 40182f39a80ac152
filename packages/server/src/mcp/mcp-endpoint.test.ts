import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { assertServesLookup } from '../__fixtures__/assert-serves-lookup.ts';
import { type McpEndpointServer, startMcpEndpointServer } from '../__fixtures__/mcp-endpoint-server.ts';

let endpoint: McpEndpointServer;

before(async () => {
  endpoint = await startMcpEndpointServer();
});
after(() => endpoint.close());

const keyFor = (email: string, scopes: ('chat' | 'mcp')[]) => endpoint.keyFor(email, scopes);

function connect(key: string | undefined) {
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${endpoint.url}/v1/mcp/default`), {
    requestInit: { headers: key ? { authorization: `Bearer ${key}` } : {} },
  });
  return { client, transport };
}

test("the MCP SDK's client lists and calls a persona's tools over Streamable HTTP with an API key", async () => {
  const key = await keyFor('mcp@example.com', ['mcp']);
  const { client, transport } = connect(key);
  await client.connect(transport);
  try {
    const tools = await assertServesLookup(client);
    const schema = tools[0]?.inputSchema as { properties?: Record<string, unknown> } | undefined;
    assert.ok(schema?.properties?.query, "the input schema is the tool's own");
    const invalid = await client.callTool({ name: 'lookup', arguments: { query: 42 } });
    assert.equal(invalid.isError, true, 'a bad call is a tool error the client can read');
  } finally {
    await client.close();
  }
});

test('without a key, or with a key lacking the mcp scope, the endpoint refuses', async () => {
  const anonymous = await fetch(`${endpoint.url}/v1/mcp/default`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  assert.equal(anonymous.status, 401);
  const chatOnly = await keyFor('chat-only@example.com', ['chat']);
  const { client, transport } = connect(chatOnly);
  await assert.rejects(client.connect(transport), /403|scope/);
  const unknown = await fetch(`${endpoint.url}/v1/mcp/no-such-persona`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await keyFor('p@example.com', ['mcp'])}`,
      'content-type': 'application/json',
    },
    body: '{}',
  });
  assert.equal(unknown.status, 400);
});

// The MCP endpoint behind HAProxy (Debian's) in front of two `toolbus serve` replicas, round-robin, no sticky
// sessions: a 2026-07-28 client discovers, lists and calls a persona's tools through the balancer. Each of its
// requests stands alone (no session id), so every call is answered whichever replica gets it, and the calls are
// seen to have reached both replicas (HAProxy names the replica that answered in `x-replica`).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type ScriptedModelServer, startScriptedModelServer } from '@toolbus/core/testing';
import { startRedisServer, type TestRedisServer } from '@toolbus/redis/testing';
import { type ReplicaCluster, startReplicaCluster } from './__fixtures__/replica-cluster.ts';

let redis: TestRedisServer;
let model: ScriptedModelServer;
let cluster: ReplicaCluster;

before(async () => {
  redis = await startRedisServer();
  // No turn runs here: the model is only what `toolbus serve` needs to start.
  model = await startScriptedModelServer({ handler: () => [{ type: 'text', text: 'unused' }] });
  cluster = await startReplicaCluster({
    redisUrl: redis.url,
    model: `openai-compatible:${model.url}/v1#scripted`,
    replicas: 2,
    // Nothing runs Python: a loopback address nobody listens on spares starting a sandbox service.
    sandboxUrl: 'http://127.0.0.1:9',
  });
});
after(async () => {
  await cluster?.stop();
  await model?.close();
  await redis?.stop();
});

test('a 2026-07-28 client calls /v1/mcp tools through round-robin HAProxy; both replicas answer', async () => {
  const exchanges: {
    method: string | null;
    replica: string | null;
    session: string | null;
    status: number;
  }[] = [];
  const client = new Client(
    { name: 'balanced-client', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${cluster.url}/v1/mcp/default`), {
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      exchanges.push({
        method: new Headers(init?.headers).get('mcp-method'),
        replica: response.headers.get('x-replica'),
        session: response.headers.get('mcp-session-id'),
        status: response.status,
      });
      return response;
    },
  });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    assert.ok(names.includes('internal_search'), `tools: ${names.join(', ')}`);
    const calls = 8;
    for (let index = 0; index < calls; index += 1) {
      const result = await client.callTool({
        name: 'internal_search',
        arguments: { queries: [`question ${index}`] },
      });
      assert.equal(result.isError, false, JSON.stringify(result));
      assert.equal((result.content as { type: string }[])[0]?.type, 'text');
    }
    const callExchanges = exchanges.filter((exchange) => exchange.method === 'tools/call');
    assert.equal(callExchanges.length, calls, 'every call was one request, answered');
    for (const exchange of exchanges) {
      assert.equal(exchange.status, 200);
      assert.equal(exchange.session, null, 'no session id: nothing ties a client to a replica');
    }
    const replicas = new Set(callExchanges.map((exchange) => exchange.replica));
    assert.deepEqual([...replicas].sort(), ['replica1', 'replica2'], 'calls reached both replicas');
  } finally {
    await client.close();
  }
});

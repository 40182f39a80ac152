// The MCP OAuth connect flow across replicas sharing one Redis and one storage file: the user starts connecting on
// one replica, and the browser's callback (behind a load balancer, the same origin) reaches the other one. The
// authorization in progress is found there, once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createGuardedFetch } from '@toolbus/core/node';
import { whoamiTool } from '../../mcp/src/__fixtures__/authorize-loopback-user.ts';
import {
  type LoopbackOAuthServers,
  startLoopbackOAuthServers,
} from '../../mcp/src/__fixtures__/loopback-oauth-servers.ts';
import {
  type Replica,
  type ServerReplicas,
  serverReplicas,
  startApiReplicas,
} from './__fixtures__/server-replicas.ts';
import { startRedisServer, type TestRedisServer } from './testing/index.ts';

let redis: TestRedisServer;
let oauthServers: LoopbackOAuthServers;
let replicas: ServerReplicas;

before(async () => {
  redis = await startRedisServer();
  oauthServers = await startLoopbackOAuthServers([whoamiTool]);
  replicas = await serverReplicas({ redisUrl: redis.url });
  await startApiReplicas(replicas, 2, () => ({
    auth: 'api-keys',
    defaultModel: 'openai-compatible:http://127.0.0.1:1/v1#unused',
    fetch: createGuardedFetch({ level: 'strict', allow: ['127.0.0.1'] }) as typeof fetch,
  }));
});
after(async () => {
  await replicas?.close();
  await oauthServers?.close();
  await redis?.stop();
});

function call(replica: Replica, method: string, path: string, key: string, body?: unknown) {
  return fetch(`${replica.http.url}${path}`, {
    method,
    redirect: 'manual',
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

test('a connect started on one replica completes when the callback reaches the other, and only once', async () => {
  const [first, second] = replicas.running as [Replica, Replica];
  const adminKey = (await first.server.access.bootstrapAdmin('admin@example.com'))?.key ?? '';
  const created = await call(first, 'POST', '/v1/admin/mcp-servers', adminKey, {
    name: 'protected',
    endpoint: { transport: 'streamable-http', url: oauthServers.mcpUrl },
    authType: 'oauth',
  });
  assert.equal(created.status, 201);
  const serverId = ((await created.json()) as { id: string }).id;

  const start = await call(first, 'POST', `/v1/mcp-servers/${serverId}/connection`, adminKey, {
    returnTo: '/admin/mcp',
  });
  const started = (await start.json()) as { status: string; authorizationUrl: string };
  // The binding cookie the starting browser now holds: the callback must come from that browser.
  const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  assert.equal(started.status, 'authorization_required');
  // The user's browser approves; the authorization server sends it back to the callback.
  const authorize = await fetch(started.authorizationUrl, { redirect: 'manual' });
  assert.equal(authorize.status, 302);
  const callback = new URL(authorize.headers.get('location') ?? '');
  assert.equal(callback.origin, first.http.url);
  // Behind a load balancer the same origin may land on any replica: here, the one that did not start it.
  const onSecond = new URL(`${callback.pathname}${callback.search}`, second.http.url);
  const back = await fetch(onSecond, { redirect: 'manual', headers: { cookie } });
  assert.equal(back.status, 302, await back.text());
  assert.equal(new URL(back.headers.get('location') ?? '', second.http.url).pathname, '/admin/mcp');

  const status = await call(first, 'GET', `/v1/mcp-servers/${serverId}/connection`, adminKey);
  assert.equal(((await status.json()) as { connected: boolean }).connected, true, 'the tokens are stored');
  // The state is spent: the same callback again, on either replica, is refused.
  for (const replica of [first, second]) {
    const replay = await fetch(new URL(`${callback.pathname}${callback.search}`, replica.http.url), {
      redirect: 'manual',
      headers: { cookie },
    });
    assert.equal(replay.status, 403);
  }
});

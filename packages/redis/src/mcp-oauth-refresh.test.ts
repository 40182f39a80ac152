// MCP OAuth token refresh across replicas: two replicas (each its own storage handle on one database and its own
// Redis connection) hold a connection of the same user to an OAuth-protected MCP server. The loopback
// authorization server rotates refresh tokens and refuses a used one. Both access tokens are rejected at once:
// under the Redis single-flight lock exactly one refresh request reaches the server, and both replicas go on.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createStorageMcpTokenStore } from '@toolbus/assembly';
import {
  connectMcpServer,
  type McpConnection,
  type McpRefreshLock,
  type McpServerConfig,
} from '@toolbus/mcp';
import { singleFlight } from '@toolbus/server';
import { openStorage, type Storage } from '@toolbus/storage';
import { Redis } from 'ioredis';
import {
  authorizeLoopbackUser,
  loopbackOAuthConfig,
  slowRefreshFetch,
  whoamiAnswer,
  whoamiTool,
} from '../../mcp/src/__fixtures__/authorize-loopback-user.ts';
import {
  type LoopbackOAuthServers,
  startLoopbackOAuthServers,
} from '../../mcp/src/__fixtures__/loopback-oauth-servers.ts';
import { openTestStorage } from '../../server/src/__fixtures__/test-server.ts';
import { RedisKeys } from './redis-keys.ts';
import { RedisSingleFlightLock } from './redis-single-flight-lock.ts';
import { startRedisServer, type TestRedisServer } from './testing/index.ts';

interface Replica {
  readonly storage: Storage;
  readonly redis: Redis;
  readonly refreshLock: McpRefreshLock;
}

const redirectUrl = 'http://127.0.0.1:1/oauth/callback';
let redis: TestRedisServer;
let servers: LoopbackOAuthServers;
let config: McpServerConfig;
let userId: string;
const replicas: Replica[] = [];

before(async () => {
  redis = await startRedisServer();
  servers = await startLoopbackOAuthServers([whoamiTool]);
  const seeded = await openTestStorage();
  userId = (await seeded.storage.users.create({ email: 'alice@example.com' })).id;
  const server = await seeded.storage.mcpServers.create({
    name: 'protected',
    endpoint: { transport: 'streamable-http', url: servers.mcpUrl },
    authType: 'oauth',
  });
  config = loopbackOAuthConfig(servers.mcpUrl, server.id);
  await seeded.storage.close();
  for (let index = 0; index < 2; index += 1) {
    const storage = await openStorage({ path: seeded.path, secretKey: Buffer.alloc(32, 3), environment: {} });
    const connection = new Redis(redis.url);
    const lock = new RedisSingleFlightLock({ redis: connection, keys: new RedisKeys() });
    // As `createServer` builds it from the scale-out backend's locks.
    const refreshLock: McpRefreshLock = (key, work) => singleFlight({ lock, key }, work);
    replicas.push({ storage, redis: connection, refreshLock });
  }
});
after(async () => {
  for (const replica of replicas) {
    await replica.redis.quit();
    await replica.storage.close();
  }
  await servers?.close();
  await redis?.stop();
});

function oauthOf(replica: Replica) {
  return {
    tokenStore: createStorageMcpTokenStore(replica.storage),
    userId,
    redirectUrl,
    refreshLock: replica.refreshLock,
  };
}

test('two replicas refreshing one user token at once: one refresh request reaches the rotating server', async () => {
  const [first, second] = replicas as [Replica, Replica];
  await authorizeLoopbackUser(config, { fetch, oauth: oauthOf(first) });
  const authorized = (await createStorageMcpTokenStore(second.storage).load(userId, config.id))?.tokens;
  assert.ok(authorized?.refresh_token, 'both replicas read the stored grant');
  const connections: McpConnection[] = [];
  try {
    for (const replica of [first, second]) {
      connections.push(await connectMcpServer(config, { fetch: slowRefreshFetch, oauth: oauthOf(replica) }));
    }
    servers.provider.revokeAccessTokens();
    const events = servers.provider.events.length;
    const tokenPosts = () =>
      servers.authorizationRequests.filter(
        (request) => request.method === 'POST' && request.path === '/token',
      ).length;
    const postsBefore = tokenPosts();
    const results = await Promise.all(
      connections.map((connection) => connection.callTool({ name: 'whoami', arguments: {} })),
    );
    for (const result of results) assert.deepEqual(result.content, whoamiAnswer);
    assert.equal(tokenPosts() - postsBefore, 1, 'exactly one token request reached the authorization server');
    assert.deepEqual(servers.provider.events.slice(events), ['token:refresh_token']);
    const refreshed = (await createStorageMcpTokenStore(first.storage).load(userId, config.id))?.tokens;
    assert.notEqual(
      refreshed?.refresh_token,
      authorized.refresh_token,
      'the rotated refresh token is stored',
    );
    const lastTwo = servers.mcpRequests.filter((request) => request.path === '/mcp').slice(-2);
    for (const request of lastTwo)
      assert.equal(request.headers.authorization, `Bearer ${refreshed?.access_token}`);
    // The lock is released: nothing is left held in Redis.
    assert.deepEqual(await first.redis.keys('toolbus:lock:*'), []);
  } finally {
    for (const connection of connections) await connection.close();
  }
});

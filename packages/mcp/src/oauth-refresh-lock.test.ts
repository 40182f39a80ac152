// Token refresh under the refresh lock, against the loopback authorization server, which rotates refresh tokens
// and refuses a used one (invalid_grant). Two connections of one user sharing one token store (as two turns, or two
// replicas on one storage, hold them) both find their access token rejected at once: exactly one refresh request
// reaches the server, and both go on with its tokens.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  authorizeLoopbackUser,
  loopbackOAuthConfig,
  slowRefreshFetch,
  whoamiAnswer,
  whoamiTool,
} from './__fixtures__/authorize-loopback-user.ts';
import {
  type LoopbackOAuthServers,
  startLoopbackOAuthServers,
} from './__fixtures__/loopback-oauth-servers.ts';
import { connectMcpServer, type McpConnection } from './connect-mcp-server.ts';
import type { McpServerConfig } from './mcp-server-config.ts';
import { createInMemoryMcpTokenStore } from './mcp-token-store.ts';
import { StoreOAuthClientProvider } from './store-oauth-client-provider.ts';

const redirectUrl = 'http://127.0.0.1:1/oauth/callback';

describe('MCP OAuth refresh under the refresh lock', () => {
  let servers: LoopbackOAuthServers;
  let config: McpServerConfig;
  before(async () => {
    servers = await startLoopbackOAuthServers([whoamiTool]);
    config = loopbackOAuthConfig(servers.mcpUrl);
  });
  after(() => servers.close());

  test('two connections refreshing at once (in-process lock by default): one refresh request, both calls succeed', async () => {
    const tokenStore = createInMemoryMcpTokenStore();
    const oauth = { tokenStore, userId: 'user-1', redirectUrl };
    await authorizeLoopbackUser(config, { fetch, oauth });
    const first = (await tokenStore.load('user-1', 'protected'))?.tokens;
    const connections: McpConnection[] = [];
    try {
      for (let index = 0; index < 2; index += 1)
        connections.push(await connectMcpServer(config, { fetch: slowRefreshFetch, oauth }));
      servers.provider.revokeAccessTokens();
      const before = servers.provider.events.length;
      const results = await Promise.all(
        connections.map((connection) => connection.callTool({ name: 'whoami', arguments: {} })),
      );
      for (const result of results) assert.deepEqual(result.content, whoamiAnswer);
      const events = servers.provider.events.slice(before);
      assert.deepEqual(events, ['token:refresh_token'], 'one refresh, no new authorization');
      const refreshed = (await tokenStore.load('user-1', 'protected'))?.tokens;
      assert.notEqual(refreshed?.refresh_token, first?.refresh_token, 'the rotated refresh token is stored');
      assert.notEqual(refreshed?.access_token, first?.access_token);
      // Both connections went on with the one new access token.
      const lastTwo = servers.mcpRequests.filter((request) => request.path === '/mcp').slice(-2);
      for (const request of lastTwo)
        assert.equal(request.headers.authorization, `Bearer ${refreshed?.access_token}`);
    } finally {
      for (const connection of connections) await connection.close();
    }
  });

  test('without serialising, the same two refreshes spend one refresh token twice and the server refuses one', async () => {
    // The failure the lock prevents, shown on the same servers: a lock that lets both run at once.
    const tokenStore = createInMemoryMcpTokenStore();
    const oauth = {
      tokenStore,
      userId: 'user-2',
      redirectUrl,
      refreshLock: <T>(_key: string, work: () => Promise<T>) => work(),
    };
    await authorizeLoopbackUser(config, { fetch, oauth });
    // Both connections must reach the token endpoint with the same refresh token: hold each refresh until both came.
    let arrived = 0;
    let release: () => void = () => {};
    const bothArrived = new Promise<void>((resolve) => {
      release = resolve;
    });
    const holdingFetch: typeof fetch = async (input, init) => {
      if (String(init?.body ?? '').includes('grant_type=refresh_token')) {
        arrived += 1;
        if (arrived === 2) release();
        await bothArrived;
      }
      return fetch(input, init);
    };
    const connections: McpConnection[] = [];
    try {
      for (let index = 0; index < 2; index += 1)
        connections.push(await connectMcpServer(config, { fetch: holdingFetch, oauth }));
      servers.provider.revokeAccessTokens();
      const tokenPosts = () =>
        servers.authorizationRequests.filter(
          (request) => request.method === 'POST' && request.path === '/token',
        ).length;
      const postsBefore = tokenPosts();
      const refreshesBefore = servers.provider.events.filter(
        (event) => event === 'token:refresh_token',
      ).length;
      await Promise.allSettled(
        connections.map((connection) => connection.callTool({ name: 'whoami', arguments: {} })),
      );
      assert.ok(arrived >= 2, 'two refresh requests with one refresh token');
      const accepted =
        servers.provider.events.filter((event) => event === 'token:refresh_token').length - refreshesBefore;
      assert.ok(tokenPosts() - postsBefore > accepted, 'the server refused the reused refresh token');
    } finally {
      for (const connection of connections) await connection.close().catch(() => undefined);
    }
  });

  test('a JSON body that parses as a refresh form (a tool argument) goes to its server, never answered with tokens', async () => {
    const tokenStore = createInMemoryMcpTokenStore();
    await tokenStore.save('user-3', 'protected', {
      tokens: { access_token: 'at-STORED-SECRET', token_type: 'bearer', refresh_token: 'rt-STORED-SECRET' },
      tokensSavedAt: Date.now(),
    });
    const provider = new StoreOAuthClientProvider({
      store: tokenStore,
      userId: 'user-3',
      serverId: 'protected',
      redirectUrl,
    });
    const received: string[] = [];
    const echo = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on('end', () => {
        received.push(body);
        response.end('from the server');
      });
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/mcp`;
      const hostile = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'search', arguments: { q: 'x&grant_type=refresh_token&refresh_token=rt-other&y' } },
      });
      const response = await provider.lockingRefreshes(fetch)(url, { method: 'POST', body: hostile });
      const text = await response.text();
      assert.equal(text, 'from the server');
      assert.deepEqual(received, [hostile]);
      assert.ok(!text.includes('STORED-SECRET'));
    } finally {
      echo.close();
    }
  });
});

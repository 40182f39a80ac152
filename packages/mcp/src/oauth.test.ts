// OAuth end to end through the SDK's client flow, against an authorization server and a protected MCP server built
// from the SDK's own server-side auth helpers, each on its own loopback origin.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestRunContext } from '@toolbus/core/testing';
import { whoamiTool } from './__fixtures__/authorize-loopback-user.ts';
import {
  type LoopbackOAuthServers,
  startLoopbackOAuthServers,
} from './__fixtures__/loopback-oauth-servers.ts';
import { createRecordingFetch } from './__fixtures__/recording-fetch.ts';
import { withMcpConnection } from './__fixtures__/with-mcp-connection.ts';
import { completeMcpOAuth } from './complete-mcp-oauth.ts';
import { connectMcpServer } from './connect-mcp-server.ts';
import { McpAuthorizationRequiredError } from './errors/mcp-authorization-required-error.ts';
import { McpConnectionError } from './errors/mcp-connection-error.ts';
import type { McpServerConfig } from './mcp-server-config.ts';
import { createInMemoryMcpTokenStore } from './mcp-token-store.ts';

const redirectUrl = 'http://127.0.0.1:1/oauth/callback';

/** Plays the user's browser: opens the authorization URL and reads where the server sends it back. */
async function authorizeAsUser(authorizationUrl: URL): Promise<{ code: string; state: string }> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  assert.equal(response.status, 302);
  const location = new URL(response.headers.get('location') ?? '');
  assert.equal(`${location.origin}${location.pathname}`, redirectUrl);
  return { code: location.searchParams.get('code') ?? '', state: location.searchParams.get('state') ?? '' };
}

describe('MCP OAuth end to end', () => {
  let servers: LoopbackOAuthServers;
  let config: McpServerConfig;
  before(async () => {
    servers = await startLoopbackOAuthServers([whoamiTool]);
    config = {
      id: 'protected',
      name: 'protected',
      transport: { type: 'streamable-http', url: servers.mcpUrl },
      auth: { type: 'oauth', clientName: 'toolbus test' },
    };
  });
  after(() => servers.close());

  test('discovery, registration, authorization, token, refresh: all through the given fetch, tokens per user', async () => {
    const recording = createRecordingFetch();
    const tokenStore = createInMemoryMcpTokenStore();
    const oauth = { tokenStore, userId: 'user-1', redirectUrl };
    const requestHeaders = { 'X-User-Context': 'u1', Authorization: 'Bearer from-the-request' };

    // 1. No token yet: connecting asks for the user's authorization.
    const required = await connectMcpServer(config, { fetch: recording.fetch, oauth, requestHeaders }).then(
      () => assert.fail('connected without authorization'),
      (error: unknown) => error,
    );
    assert.ok(McpAuthorizationRequiredError.isInstance(required));
    assert.ok(required.authorizationUrl);
    assert.equal(required.authorizationUrl.origin, servers.authorizationServerUrl);
    assert.deepEqual(servers.provider.events, ['register']);

    // 2. The user approves; a forged callback state is refused; the real one completes.
    const { code, state } = await authorizeAsUser(required.authorizationUrl);
    await assert.rejects(
      () =>
        completeMcpOAuth(config, { fetch: recording.fetch, oauth, authorizationCode: code, state: 'forged' }),
      (error: unknown) => McpConnectionError.isInstance(error) && error.code === 'mcp_oauth_state_mismatch',
    );
    await completeMcpOAuth(config, { fetch: recording.fetch, oauth, authorizationCode: code, state });
    const storedAccessToken = (await tokenStore.load('user-1', 'protected'))?.tokens?.access_token ?? '';
    assert.ok(storedAccessToken.startsWith('at-'));
    assert.equal(await tokenStore.load('user-2', 'protected'), undefined);

    // 3. Connected: the OAuth token wins over the request's Authorization.
    await withMcpConnection(config, { fetch: recording.fetch, oauth, requestHeaders }, async (connection) => {
      const whoami = (await connection.tools()).find((tool) => tool.mcpToolName === 'whoami');
      assert.ok(whoami);
      const { context, call } = createTestRunContext({ allowCitations: false });
      assert.equal((await whoami.run(call('whoami', {}), context)).llmFacing, 'you are authorized');
      const toMcp = servers.mcpRequests.filter((request) => request.path === '/mcp');
      const lastToMcp = toMcp.at(-1);
      assert.equal(lastToMcp?.headers.authorization, `Bearer ${storedAccessToken}`);
      assert.equal(lastToMcp?.headers['x-user-context'], 'u1');

      // 4. The access token stops working: the SDK refreshes it through the token endpoint and retries.
      servers.provider.revokeAccessTokens();
      assert.equal((await whoami.run(call('whoami', {}), context)).llmFacing, 'you are authorized');
      assert.ok(servers.provider.events.includes('token:refresh_token'));
      const refreshed = await tokenStore.load('user-1', 'protected');
      assert.notEqual(refreshed?.tokens?.access_token, storedAccessToken);
      assert.equal(
        servers.mcpRequests.at(-1)?.headers.authorization,
        `Bearer ${refreshed?.tokens?.access_token}`,
      );
    });

    assert.deepEqual(servers.provider.events, [
      'register',
      'authorize',
      'token:authorization_code',
      'token:refresh_token',
    ]);
    const paths = recording.records.map((record) => `${record.method} ${new URL(record.url).pathname}`);
    assert.ok(paths.some((path) => path.startsWith('GET /.well-known/oauth-protected-resource')));
    assert.ok(paths.includes('GET /.well-known/oauth-authorization-server'));
    assert.ok(paths.includes('POST /register'));
    assert.equal(paths.filter((path) => path === 'POST /token').length, 2);
    // Every request either server received came through the fetch we gave, except the user's own browser visit.
    const received = servers.authorizationRequests.length + servers.mcpRequests.length;
    assert.equal(received, recording.records.length + 1);
    // The request's extra headers went to the MCP server only, never to the authorization server.
    for (const request of servers.authorizationRequests) {
      assert.equal(request.headers['x-user-context'], undefined);
      assert.notEqual(request.headers.authorization, 'Bearer from-the-request');
    }
  });

  test('an expired access token with no refresh token is never sent; the user is asked to authorize again', async () => {
    const tokenStore = createInMemoryMcpTokenStore();
    await tokenStore.save('user-9', 'protected', {
      tokens: { access_token: 'at-expired-secret', token_type: 'bearer', expires_in: 60 },
      tokensSavedAt: Date.now() - 3_600_000,
    });
    const before = servers.mcpRequests.length;
    const required = await connectMcpServer(config, {
      fetch: createRecordingFetch().fetch,
      oauth: { tokenStore, userId: 'user-9', redirectUrl },
    }).then(
      () => assert.fail('connected with an expired token'),
      (error: unknown) => error,
    );
    assert.ok(McpAuthorizationRequiredError.isInstance(required));
    assert.ok(required.authorizationUrl);
    const sent = servers.mcpRequests.slice(before).map((request) => request.headers.authorization);
    assert.ok(sent.length > 0);
    assert.ok(
      sent.every((value) => value === undefined),
      `sent: ${sent.join(', ')}`,
    );
  });
  test('an authorization is bound to the configuration it began with: an admin change before the callback refuses the code', async () => {
    const tokenStore = createInMemoryMcpTokenStore();
    const oauth = { tokenStore, userId: 'user-change', redirectUrl };
    const required = await connectMcpServer(config, { fetch: createRecordingFetch().fetch, oauth }).then(
      () => assert.fail('connected without authorization'),
      (error: unknown) => error,
    );
    assert.ok(McpAuthorizationRequiredError.isInstance(required) && required.authorizationUrl);
    const { code, state } = await authorizeAsUser(required.authorizationUrl);
    const exchanges = servers.provider.events.filter((event) => event === 'token:authorization_code').length;
    for (const changed of [
      { ...config, auth: { type: 'oauth' as const, clientName: 'toolbus test', scope: 'admin' } },
      { ...config, transport: { type: 'streamable-http' as const, url: `${servers.mcpUrl}?tenant=2` } },
    ]) {
      await assert.rejects(
        () =>
          completeMcpOAuth(changed, {
            fetch: createRecordingFetch().fetch,
            oauth,
            authorizationCode: code,
            state,
          }),
        (error: unknown) =>
          McpConnectionError.isInstance(error) &&
          error.code === 'mcp_oauth_config_changed' &&
          /changed by an administrator/.test(error.message),
      );
    }
    // The code was never sent to the token endpoint, and nothing was stored.
    assert.equal(
      servers.provider.events.filter((event) => event === 'token:authorization_code').length,
      exchanges,
    );
    assert.equal((await tokenStore.load('user-change', 'protected'))?.tokens, undefined);
    // Unchanged, the same authorization completes.
    await completeMcpOAuth(config, {
      fetch: createRecordingFetch().fetch,
      oauth,
      authorizationCode: code,
      state,
    });
    assert.ok((await tokenStore.load('user-change', 'protected'))?.tokens?.access_token);
  });
});

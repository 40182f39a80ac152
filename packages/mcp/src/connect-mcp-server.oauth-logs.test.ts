// A user's own OAuth tokens are credentials like an admin's header values: a careless server that logs the
// Authorization header it received must not hand the token to whoever receives the call's relayed logs.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { McpLogMessage } from '@toolbus/spec';
import { authorizeLoopbackUser, loopbackOAuthConfig } from './__fixtures__/authorize-loopback-user.ts';
import {
  type LoopbackOAuthServers,
  startLoopbackOAuthServers,
} from './__fixtures__/loopback-oauth-servers.ts';
import { connectMcpServer } from './connect-mcp-server.ts';
import { createInMemoryMcpTokenStore } from './mcp-token-store.ts';

let servers: LoopbackOAuthServers;
before(async () => {
  servers = await startLoopbackOAuthServers([
    {
      tool: { name: 'connect', description: 'Connects', inputSchema: { type: 'object', properties: {} } },
      // Logs the credential of the request it is answering, as a server that dumps its request headers would.
      call: async (_args, context) => {
        await context.log('info', { received: servers.mcpRequests.at(-1)?.headers.authorization });
        return { content: [{ type: 'text', text: 'connected' }] };
      },
    },
  ]);
});
after(() => servers.close());

test("a user's OAuth access token is masked in the logs relayed from a call, a refreshed one too", async () => {
  const config = loopbackOAuthConfig(servers.mcpUrl);
  const tokenStore = createInMemoryMcpTokenStore();
  const oauth = { tokenStore, userId: 'user-1', redirectUrl: 'http://127.0.0.1:1/oauth/callback' };
  await authorizeLoopbackUser(config, { fetch, oauth });
  const connection = await connectMcpServer(config, { fetch, oauth });
  try {
    const callAndRelay = async (): Promise<McpLogMessage[]> => {
      const relayed: McpLogMessage[] = [];
      const result = await connection.callTool({
        name: 'connect',
        arguments: {},
        logs: { level: 'info', onLog: (message) => relayed.push(message) },
      });
      assert.equal(result.isError ?? false, false);
      return relayed;
    };
    const first = await callAndRelay();
    const firstToken = (await tokenStore.load('user-1', config.id))?.tokens?.access_token ?? '';
    assert.ok(firstToken.length >= 8, 'the user has an access token');
    assert.deepEqual(
      first.map((message) => message.data),
      [{ received: 'Bearer [redacted]' }],
    );

    // The server stops taking the token; the SDK refreshes it and retries: the new token is masked as well.
    servers.provider.revokeAccessTokens();
    const second = await callAndRelay();
    const secondToken = (await tokenStore.load('user-1', config.id))?.tokens?.access_token ?? '';
    assert.notEqual(secondToken, firstToken);
    assert.deepEqual(
      second.map((message) => message.data),
      [{ received: 'Bearer [redacted]' }],
    );
    const everything = JSON.stringify([...first, ...second]);
    assert.ok(!everything.includes(firstToken) && !everything.includes(secondToken));
  } finally {
    await connection.close();
  }
});

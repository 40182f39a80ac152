// The OAuth rules of the MCP client as a user meets them, through the real server on loopback: the callback's `iss`
// (RFC 9207) passed on to the client's check, an authorization bound to the server's configuration at its start,
// a revoked grant reaching the model as a readable "reconnect" result, and toolbus's Client ID Metadata Document.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Storage } from '@toolbus/storage';
import type { LoopbackOAuthServers } from '../../../mcp/src/__fixtures__/loopback-oauth-servers.ts';
import { jsonOf } from '../__fixtures__/api-calls.ts';
import { type McpOAuthWorld, startMcpOAuthWorld } from '../__fixtures__/mcp-oauth-world.ts';
import { openTestStorage } from '../__fixtures__/test-server.ts';
import { createServer } from '../create-server.ts';
import { listen } from '../listen.ts';

let world: McpOAuthWorld;
let oauthServers: LoopbackOAuthServers;
let storage: Storage;
let adminKey: string;
/** Set by a test: the grant is revoked when the model asks for the tool (after the assembly listed it). */
let revokeBeforeCall = false;

before(async () => {
  world = await startMcpOAuthWorld({
    issParameter: true,
    handler: (request) => {
      if (request.messages.at(-1)?.role === 'tool') {
        return [
          { type: 'text', text: `Tool said: ${request.messages.at(-1)?.toolResults[0]?.content ?? ''}` },
        ];
      }
      if (!request.toolNames.includes('whoami')) return [{ type: 'text', text: 'No tool for that.' }];
      if (revokeBeforeCall) oauthServers.provider.revokeGrants();
      return [{ type: 'tool-call', id: 'call_who', name: 'whoami', arguments: {} }];
    },
  });
  ({ oauthServers, storage, adminKey } = world);
});
after(() => world.close());

const call = (method: string, path: string, key: string | undefined, body?: unknown) =>
  world.call(method, path, key, body);
const json = jsonOf;

/** Starts connecting as the key's user, plays the browser at the authorization server, and lands on the callback. */
async function connectThroughCallback(key: string, serverId: string, beforeCallback?: () => Promise<void>) {
  const start = await world.startConnecting(key, serverId);
  assert.equal(start.status, 'authorization_required');
  const authorize = await fetch(start.authorizationUrl, { redirect: 'manual' });
  assert.equal(authorize.status, 302);
  const callback = new URL(authorize.headers.get('location') ?? '');
  assert.equal(`${callback.origin}${callback.pathname}`, `${world.http.url}/v1/mcp-oauth/callback`);
  await beforeCallback?.();
  return {
    callback,
    response: await fetch(callback, { redirect: 'manual', headers: { cookie: start.cookie } }),
  };
}

function exchanges(): number {
  return oauthServers.provider.events.filter((event) => event === 'token:authorization_code').length;
}

describe('the MCP OAuth callback passes the issuer on (RFC 9207)', () => {
  test('the right iss connects; a wrong one, or none where the server advertises it, is refused before the code is spent', async (context) => {
    const serverId = await world.addMcpServer('iss-checked');
    for (const mode of ['wrong', 'omit'] as const) {
      oauthServers.provider.issInRedirect = mode;
      const before = exchanges();
      const { callback, response } = await connectThroughCallback(adminKey, serverId);
      assert.equal(callback.searchParams.get('iss'), mode === 'wrong' ? 'https://mix-up.example' : null);
      const refused = await json<{ error: { code: string; field: string; message: string } }>(response, 403);
      assert.equal(refused.error.field, 'query.code');
      context.diagnostic(refused.error.message);
      assert.match(
        refused.error.message,
        /the code exchange with "iss-checked" failed: .*(RFC 9207|\biss\b)/i,
      );
      assert.equal(exchanges(), before, `${mode}: the code never reached the token endpoint`);
      assert.equal(await world.isConnected(adminKey, serverId), false);
    }
    oauthServers.provider.issInRedirect = 'correct';
    const { callback, response } = await connectThroughCallback(adminKey, serverId);
    assert.equal(callback.searchParams.get('iss'), oauthServers.provider.issuer);
    assert.equal(response.status, 302, await response.text());
    assert.equal(await world.isConnected(adminKey, serverId), true);
  });
});

describe('an authorization in progress is bound to the server as it was when it began', () => {
  test('an admin changes the server while the user is at the authorization server: the callback is refused', async () => {
    oauthServers.provider.issInRedirect = 'correct';
    const serverId = await world.addMcpServer('changed-mid-login');
    const before = exchanges();
    const { response } = await connectThroughCallback(adminKey, serverId, async () => {
      await storage.mcpServers.update(serverId, {
        name: 'changed-mid-login',
        endpoint: { transport: 'streamable-http', url: `${oauthServers.mcpUrl}?tenant=other` },
        authType: 'oauth',
      });
    });
    const refused = await json<{ error: { message: string } }>(response, 403);
    assert.match(
      refused.error.message,
      /changed by an administrator while this authorization was in progress/,
    );
    assert.equal(exchanges(), before);
    assert.equal(await world.isConnected(adminKey, serverId), false);
  });
});

describe('a grant revoked during a turn', () => {
  test('reaches the model as a readable result asking the user to reconnect', async () => {
    oauthServers.provider.issInRedirect = 'correct';
    const serverId = await world.addMcpServer('revoked-mid-turn');
    const { response } = await connectThroughCallback(adminKey, serverId);
    assert.equal(response.status, 302, await response.text());
    await json(await call('GET', `/v1/admin/mcp-servers/${serverId}/tools`, adminKey), 200);
    const personaId = await world.offerWhoami(serverId, 'revoked');
    revokeBeforeCall = true;
    try {
      const { packets, answer } = await world.whoAmITurn(adminKey, personaId);
      // The turn ends normally; the model read the tool's result and it says what to do.
      assert.match(answer, /^Tool said: .*revoked-mid-turn.*needs the user to reconnect/s);
      assert.ok(!packets.some((packet) => packet.type === 'turn-error'), JSON.stringify(packets.at(-1)));
    } finally {
      revokeBeforeCall = false;
    }
  });
});

describe("toolbus's Client ID Metadata Document", () => {
  test('served at the configured URL’s path, listing the callback on the public origin; a URL elsewhere is refused', async () => {
    const { storage: own } = await openTestStorage();
    const options = {
      storage: own,
      auth: 'api-keys' as const,
      defaultModel: `openai-compatible:${world.model.url}/v1#scripted`,
      publicOrigin: 'https://toolbus.example',
    };
    try {
      const withDocument = await createServer({
        ...options,
        mcpClientMetadataUrl: 'https://toolbus.example/oauth/client-metadata.json',
      });
      const served = await listen(withDocument, { port: 0 });
      try {
        const response = await fetch(`${served.url}/oauth/client-metadata.json`);
        const document = await json<Record<string, unknown>>(response, 200);
        assert.deepEqual(document, {
          client_id: 'https://toolbus.example/oauth/client-metadata.json',
          client_name: 'toolbus',
          client_uri: 'https://toolbus.example',
          redirect_uris: ['https://toolbus.example/v1/mcp-oauth/callback'],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        });
      } finally {
        await served.close();
      }
      for (const [url, problem] of [
        ['https://elsewhere.example/oauth/client-metadata.json', /must be on the public origin/],
        ['http://toolbus.example/oauth/client-metadata.json', /must be https/],
        ['https://toolbus.example/v1/client.json', /outside \/v1\//],
      ] as const) {
        await assert.rejects(
          () => createServer({ ...options, mcpClientMetadataUrl: url }),
          (error: unknown) =>
            problem.test((error as Error).message) && /mcpClientMetadataUrl/.test((error as Error).message),
          url,
        );
      }
    } finally {
      await own.close();
    }
  });
});

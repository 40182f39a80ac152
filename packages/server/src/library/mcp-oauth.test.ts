import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { createGuardedFetch } from '@toolbus/core/node';
import type { Storage } from '@toolbus/storage';
import type { LoopbackOAuthServers } from '../../../mcp/src/__fixtures__/loopback-oauth-servers.ts';
import { jsonOf } from '../__fixtures__/api-calls.ts';
import { type McpOAuthWorld, startMcpOAuthWorld } from '../__fixtures__/mcp-oauth-world.ts';
import { createServer } from '../create-server.ts';
import { type ListeningServer, listen } from '../listen.ts';

let world: McpOAuthWorld;
let oauthServers: LoopbackOAuthServers;
let storage: Storage;
let databasePath: string;
let http: ListeningServer;
let adminKey: string;

before(async () => {
  world = await startMcpOAuthWorld({
    handler: (request) =>
      request.messages.at(-1)?.role === 'tool'
        ? [{ type: 'text', text: `Server says: ${request.messages.at(-1)?.toolResults[0]?.content ?? ''}` }]
        : request.toolNames.includes('whoami')
          ? [{ type: 'tool-call', id: 'call_who', name: 'whoami', arguments: {} }]
          : [{ type: 'text', text: 'No tool for that.' }],
  });
  ({ oauthServers, storage, databasePath, http, adminKey } = world);
});
after(() => world.close());

const call = (method: string, path: string, key: string | undefined, body?: unknown) =>
  world.call(method, path, key, body);
const json = jsonOf;

async function newUser(email: string): Promise<{ id: string; key: string }> {
  const user = await json<{ id: string }>(await call('POST', '/v1/admin/users', adminKey, { email }), 201);
  const created = await json<{ key: string }>(
    await call('POST', `/v1/admin/users/${user.id}/keys`, adminKey, { name: 'test' }),
    201,
  );
  return { id: user.id, key: created.key };
}

/**
 * Plays the browser: opens the authorization URL (approved at once) and follows the redirect, carrying `cookie`
 * (the binding cookie of the browser that started, or another browser's, or none).
 */
async function authorizeInBrowser(authorizationUrl: string, cookie: string | undefined): Promise<Response> {
  const authorize = await fetch(authorizationUrl, { redirect: 'manual' });
  assert.equal(authorize.status, 302);
  const callback = authorize.headers.get('location');
  assert.ok(callback?.startsWith(`${http.url}/v1/mcp-oauth/callback?`), callback ?? '');
  return fetch(callback ?? '', { redirect: 'manual', ...(cookie ? { headers: { cookie } } : {}) });
}

/** Whether the database file (or its write-ahead log) holds `text` in clear. */
async function databaseHolds(text: string): Promise<boolean> {
  const files = await Promise.all(
    [databasePath, `${databasePath}-wal`].map((path) => readFile(path).catch(() => Buffer.alloc(0))),
  );
  return files.some((bytes) => bytes.includes(text));
}

async function connect(key: string, serverId: string): Promise<void> {
  const start = await world.startConnecting(key, serverId, { returnTo: '/admin/mcp' });
  assert.equal(start.status, 'authorization_required');
  const back = await authorizeInBrowser(start.authorizationUrl, start.cookie);
  assert.equal(back.status, 302, await back.text());
}

describe('the MCP OAuth connect flow', () => {
  test('start → authorization URL with PKCE and state → callback stores tokens per user, encrypted; status; disconnect', async () => {
    const serverId = await world.addMcpServer('protected');
    const alice = await newUser('alice@example.com');
    const bob = await newUser('bob@example.com');

    const before = await json<{ servers: { serverId: string; connected: boolean }[] }>(
      await call('GET', '/v1/mcp-servers', alice.key),
      200,
    );
    assert.deepEqual(
      before.servers.map((entry) => [entry.serverId, entry.connected]),
      [[serverId, false]],
    );

    const start = await world.startConnecting(alice.key, serverId, { returnTo: '/admin/mcp' });
    assert.equal(start.status, 'authorization_required');
    assert.match(start.cookie, /^toolbus_mcp_oauth=/);
    const authorization = new URL(start.authorizationUrl);
    assert.equal(authorization.origin, oauthServers.authorizationServerUrl);
    assert.equal(authorization.searchParams.get('code_challenge_method'), 'S256');
    assert.ok(authorization.searchParams.get('code_challenge'));
    const state = authorization.searchParams.get('state');
    assert.ok(state && state.length >= 32);
    assert.equal(authorization.searchParams.get('redirect_uri'), `${http.url}/v1/mcp-oauth/callback`);
    assert.ok(oauthServers.provider.events.includes('register'), 'the client registered itself');

    const back = await authorizeInBrowser(start.authorizationUrl, start.cookie);
    assert.equal(back.status, 302, await back.text());
    assert.equal(back.headers.get('location'), `/admin/mcp?mcpConnected=${serverId}`);
    assert.ok(oauthServers.provider.events.includes('token:authorization_code'));

    // The tokens are Alice's alone, and stored encrypted (the database file never holds them in clear).
    assert.equal(await world.isConnected(alice.key, serverId), true);
    assert.equal(await world.isConnected(bob.key, serverId), false);
    const record = (await storage.userSecrets.get({
      kind: 'mcpOAuth',
      ownerId: serverId,
      userId: alice.id,
    })) as {
      tokens?: { access_token: string };
    };
    const accessToken = record.tokens?.access_token;
    assert.ok(accessToken);
    assert.ok(!(await databaseHolds(accessToken)), 'no token in clear in the database');

    // Connecting again with working tokens needs no browser.
    const again = await json<{ status: string }>(
      await call('POST', `/v1/mcp-servers/${serverId}/connection`, alice.key, {}),
      200,
    );
    assert.equal(again.status, 'connected');

    // A state is good once: replaying the callback (by anyone) is refused, and so is a made-up one.
    const replay = await fetch(`${http.url}/v1/mcp-oauth/callback?state=${state}&code=x`, {
      redirect: 'manual',
    });
    assert.equal(replay.status, 403);
    const forged = await json<{ error: { field: string } }>(
      await fetch(`${http.url}/v1/mcp-oauth/callback?state=${'ab'.repeat(24)}&code=x`),
      403,
    );
    assert.equal(forged.error.field, 'query.state');
    assert.equal(
      await storage.userSecrets.get({ kind: 'mcpOAuth', ownerId: serverId, userId: bob.id }),
      undefined,
    );

    // The admin connects too (reviews use the reviewer's own tokens), approves the tool, and puts it on a persona.
    await connect(adminKey, serverId);
    const review = await json<{ tools: { name: string; status: string }[] }>(
      await call('GET', `/v1/admin/mcp-servers/${serverId}/tools`, adminKey),
      200,
    );
    assert.deepEqual(
      review.tools.map((tool) => [tool.name, tool.status]),
      [['whoami', 'unapproved']],
    );
    const personaId = await world.offerWhoami(serverId, 'signed');

    // Alice's turn reaches the protected server with her tokens; Bob, not connected, is not offered the tool.
    assert.match(await turnAnswer(alice.key, personaId), /Server says: you are authorized/);
    assert.equal(await turnAnswer(bob.key, personaId), 'No tool for that.');

    // Disconnect forgets the tokens: status false, nothing stored, the tool no longer offered.
    assert.equal((await call('DELETE', `/v1/mcp-servers/${serverId}/connection`, alice.key)).status, 204);
    assert.equal(
      await storage.userSecrets.get({ kind: 'mcpOAuth', ownerId: serverId, userId: alice.id }),
      undefined,
    );
    assert.equal(await world.isConnected(alice.key, serverId), false);
    assert.equal(await turnAnswer(alice.key, personaId), 'No tool for that.');
  });

  test('the callback is finished by another replica (or this server restarted): the pending state is in storage, hashed', async () => {
    const serverId = await world.addMcpServer('protected-replicas');
    const carol = await newUser('carol@example.com');
    const start = await world.startConnecting(carol.key, serverId, { returnTo: '/chat' });
    const state = new URL(start.authorizationUrl).searchParams.get('state') ?? '';
    assert.ok(!(await databaseHolds(state)), 'the state itself is not stored');
    const authorize = await fetch(start.authorizationUrl, { redirect: 'manual' });
    const callback = new URL(authorize.headers.get('location') ?? '');
    // A second server on the same storage, with nothing in memory of the first, gets the browser back.
    const replica = await createServer({
      storage,
      auth: 'api-keys',
      defaultModel: `openai-compatible:${world.model.url}/v1#scripted`,
      fetch: createGuardedFetch({ level: 'strict', allow: ['127.0.0.1'] }) as typeof fetch,
      limits: { requestsPerMinute: 100_000 },
    });
    const replicaHttp = await listen(replica, { port: 0 });
    try {
      const back = await fetch(`${replicaHttp.url}${callback.pathname}${callback.search}`, {
        redirect: 'manual',
        headers: { cookie: start.cookie },
      });
      assert.equal(back.status, 302, await back.text());
      assert.equal(back.headers.get('location'), `/chat?mcpConnected=${serverId}`);
      assert.equal(await world.isConnected(carol.key, serverId), true);
      // Used up there, it is refused here (and there again).
      assert.equal(
        (await fetch(callback.href, { redirect: 'manual', headers: { cookie: start.cookie } })).status,
        403,
      );
      assert.equal(
        (await fetch(`${replicaHttp.url}${callback.pathname}${callback.search}`, { redirect: 'manual' }))
          .status,
        403,
      );
    } finally {
      await replicaHttp.close();
    }
  });

  test('an expired authorization is refused at the callback', async () => {
    const serverId = await world.addMcpServer('protected-expiry');
    const dave = await newUser('dave@example.com');
    const start = await world.startConnecting(dave.key, serverId);
    const state = new URL(start.authorizationUrl).searchParams.get('state') ?? '';
    // Moves the stored expiry into the past, as if the user took longer than the lifetime.
    const taken = await storage.mcpServers.takePendingAuthorization(
      createHash('sha256').update(state).digest('hex'),
    );
    assert.ok(taken, 'stored by the hash of its state');
    await storage.mcpServers.savePendingAuthorization({
      ...taken,
      expiresAt: new Date(Date.now() - 1).toISOString(),
    });
    const back = await authorizeInBrowser(start.authorizationUrl, start.cookie);
    const refused = await json<{ error: { field: string } }>(back, 403);
    assert.equal(refused.error.field, 'query.state');
    const stored = await storage.userSecrets.get({ kind: 'mcpOAuth', ownerId: serverId, userId: dave.id });
    assert.equal(stored?.tokens, undefined, 'no tokens were exchanged');
  });

  test('a server without OAuth, or an unknown one, is refused naming the field', async () => {
    const plainId = await world.addMcpServer('plain', 'none');
    const refused = await json<{ error: { field: string } }>(
      await call('POST', `/v1/mcp-servers/${plainId}/connection`, adminKey, {}),
      400,
    );
    assert.equal(refused.error.field, 'path.serverId');
    await json(await call('POST', '/v1/mcp-servers/nope/connection', adminKey, {}), 404);
    assert.equal((await call('GET', '/v1/mcp-servers', undefined)).status, 401);
  });
});

describe('attacks on the MCP OAuth flow (issue 28, finding 3)', () => {
  test('no returnTo leaves this origin: the path is checked after the normalisation the redirect uses', async () => {
    const serverId = await world.addMcpServer('protected-redirects');
    const erin = await newUser('erin@example.com');
    for (const returnTo of [
      '/.//evil.example/landing',
      '/%2e//evil.example/x',
      '/%2E%2E//evil.example/x',
      '/a/../..//evil.example/x',
      '/\\evil.example/x',
      '/\t/evil.example',
      'https://evil.example/x',
    ]) {
      await storage.userSecrets.delete({ kind: 'mcpOAuth', ownerId: serverId, userId: erin.id });
      const start = await world.startConnecting(erin.key, serverId, { returnTo });
      const back = await authorizeInBrowser(start.authorizationUrl, start.cookie);
      assert.equal(back.status, 302, await back.text());
      const location = back.headers.get('location') ?? '';
      assert.equal(location, `/?mcpConnected=${serverId}`, `${JSON.stringify(returnTo)} → ${location}`);
    }
    // A plain path with a query and fragment still goes where it says.
    await storage.userSecrets.delete({ kind: 'mcpOAuth', ownerId: serverId, userId: erin.id });
    const start = await world.startConnecting(erin.key, serverId, { returnTo: '/admin/mcp?tab=1#top' });
    const back = await authorizeInBrowser(start.authorizationUrl, start.cookie);
    assert.equal(back.headers.get('location'), `/admin/mcp?tab=1&mcpConnected=${serverId}#top`);
  });

  test("a victim who opens an attacker's authorization URL links nothing: the callback needs the starting browser", async () => {
    const serverId = await world.addMcpServer('protected-binding');
    const mallory = await newUser('mallory@example.com');
    const victim = await newUser('victim@example.com');
    const attack = await world.startConnecting(mallory.key, serverId);
    // The victim's browser has a binding cookie of its own (it connected before), but not Mallory's.
    const victimOwn = await world.startConnecting(victim.key, serverId);
    for (const cookie of [undefined, victimOwn.cookie]) {
      const attempt = await world.startConnecting(mallory.key, serverId);
      const refused = await json<{ error: { field: string; message: string } }>(
        await authorizeInBrowser(attempt.authorizationUrl, cookie),
        403,
      );
      assert.equal(refused.error.field, 'query.state');
      assert.match(refused.error.message, /another browser/);
    }
    const refused = await authorizeInBrowser(attack.authorizationUrl, victimOwn.cookie);
    assert.equal(refused.status, 403);
    const stored = await storage.userSecrets.get({ kind: 'mcpOAuth', ownerId: serverId, userId: mallory.id });
    assert.equal(stored?.tokens, undefined, "no tokens were linked to the attacker's account");
  });
});

async function turnAnswer(key: string, personaId: string): Promise<string> {
  return (await world.whoAmITurn(key, personaId)).answer;
}

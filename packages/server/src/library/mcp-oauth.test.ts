import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { createGuardedFetch } from '@toolbus/core/node';
import { type ScriptedModelServer, startScriptedModelServer } from '@toolbus/core/testing';
import type { Storage } from '@toolbus/storage';
import { whoamiTool } from '../../../mcp/src/__fixtures__/authorize-loopback-user.ts';
import {
  type LoopbackOAuthServers,
  startLoopbackOAuthServers,
} from '../../../mcp/src/__fixtures__/loopback-oauth-servers.ts';
import { openTestStorage, readSse } from '../__fixtures__/test-server.ts';
import { createServer, type ToolbusServer } from '../create-server.ts';
import { type ListeningServer, listen } from '../listen.ts';

let oauthServers: LoopbackOAuthServers;
let model: ScriptedModelServer;
let storage: Storage;
let databasePath: string;
let server: ToolbusServer;
let http: ListeningServer;
let adminKey: string;

before(async () => {
  oauthServers = await startLoopbackOAuthServers([whoamiTool]);
  model = await startScriptedModelServer({
    handler: (request) =>
      request.messages.at(-1)?.role === 'tool'
        ? [{ type: 'text', text: `Server says: ${request.messages.at(-1)?.toolResults[0]?.content ?? ''}` }]
        : request.toolNames.includes('whoami')
          ? [{ type: 'tool-call', id: 'call_who', name: 'whoami', arguments: {} }]
          : [{ type: 'text', text: 'No tool for that.' }],
  });
  ({ storage, path: databasePath } = await openTestStorage());
  server = await createServer({
    storage,
    auth: 'api-keys',
    defaultModel: `openai-compatible:${model.url}/v1#scripted`,
    fetch: createGuardedFetch({ level: 'strict', allow: ['127.0.0.1'] }) as typeof fetch,
    limits: { requestsPerMinute: 100_000 },
  });
  http = await listen(server, { port: 0 });
  const bootstrap = await server.access.bootstrapAdmin('admin@example.com');
  assert.ok(bootstrap);
  adminKey = bootstrap.key;
});
after(async () => {
  await http.close();
  await storage.close();
  await model.close();
  await oauthServers.close();
});

async function call(method: string, path: string, key: string | undefined, body?: unknown) {
  return fetch(`${http.url}${path}`, {
    method,
    redirect: 'manual',
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function json<T>(response: Response, status: number): Promise<T> {
  const text = await response.text();
  assert.equal(response.status, status, text);
  return (text ? JSON.parse(text) : undefined) as T;
}

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

/** Starts connecting: the answer, and the binding cookie the starting browser now holds. */
async function startConnecting(
  key: string,
  serverId: string,
  body: { returnTo?: string } = {},
): Promise<{ status: string; authorizationUrl: string; cookie: string }> {
  const response = await call('POST', `/v1/mcp-servers/${serverId}/connection`, key, body);
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const start = await json<{ status: string; authorizationUrl: string }>(response, 200);
  return { ...start, cookie };
}

async function connect(key: string, serverId: string): Promise<void> {
  const start = await startConnecting(key, serverId, { returnTo: '/admin/mcp' });
  assert.equal(start.status, 'authorization_required');
  const back = await authorizeInBrowser(start.authorizationUrl, start.cookie);
  assert.equal(back.status, 302, await back.text());
}

describe('the MCP OAuth connect flow', () => {
  test('start → authorization URL with PKCE and state → callback stores tokens per user, encrypted; status; disconnect', async () => {
    const mcp = await json<{ id: string }>(
      await call('POST', '/v1/admin/mcp-servers', adminKey, {
        name: 'protected',
        endpoint: { transport: 'streamable-http', url: oauthServers.mcpUrl },
        authType: 'oauth',
      }),
      201,
    );
    const alice = await newUser('alice@example.com');
    const bob = await newUser('bob@example.com');

    const before = await json<{ servers: { serverId: string; connected: boolean }[] }>(
      await call('GET', '/v1/mcp-servers', alice.key),
      200,
    );
    assert.deepEqual(
      before.servers.map((entry) => [entry.serverId, entry.connected]),
      [[mcp.id, false]],
    );

    const start = await startConnecting(alice.key, mcp.id, { returnTo: '/admin/mcp' });
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
    assert.equal(back.headers.get('location'), `/admin/mcp?mcpConnected=${mcp.id}`);
    assert.ok(oauthServers.provider.events.includes('token:authorization_code'));

    // The tokens are Alice's alone, and stored encrypted (the database file never holds them in clear).
    const aliceStatus = await json<{ connected: boolean }>(
      await call('GET', `/v1/mcp-servers/${mcp.id}/connection`, alice.key),
      200,
    );
    assert.equal(aliceStatus.connected, true);
    const bobStatus = await json<{ connected: boolean }>(
      await call('GET', `/v1/mcp-servers/${mcp.id}/connection`, bob.key),
      200,
    );
    assert.equal(bobStatus.connected, false);
    const record = (await storage.mcpServers.getOAuthState({ serverId: mcp.id, userId: alice.id })) as {
      tokens?: { access_token: string };
    };
    const accessToken = record.tokens?.access_token;
    assert.ok(accessToken);
    const files = await Promise.all(
      [databasePath, `${databasePath}-wal`].map((path) => readFile(path).catch(() => Buffer.alloc(0))),
    );
    assert.ok(
      files.every((bytes) => !bytes.includes(accessToken)),
      'no token in clear in the database',
    );

    // Connecting again with working tokens needs no browser.
    const again = await json<{ status: string }>(
      await call('POST', `/v1/mcp-servers/${mcp.id}/connection`, alice.key, {}),
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
    assert.equal(await storage.mcpServers.getOAuthState({ serverId: mcp.id, userId: bob.id }), undefined);

    // The admin connects too (reviews use the reviewer's own tokens), approves the tool, and puts it on a persona.
    await connect(adminKey, mcp.id);
    const review = await json<{ tools: { name: string; status: string }[] }>(
      await call('GET', `/v1/admin/mcp-servers/${mcp.id}/tools`, adminKey),
      200,
    );
    assert.deepEqual(
      review.tools.map((tool) => [tool.name, tool.status]),
      [['whoami', 'unapproved']],
    );
    await json(await call('POST', `/v1/admin/mcp-servers/${mcp.id}/tools/whoami/approval`, adminKey), 200);
    const persona = await json<{ id: string }>(
      await call('POST', '/v1/admin/personas', adminKey, { name: 'signed' }),
      201,
    );
    await json(
      await call('POST', `/v1/admin/personas/${persona.id}/tools`, adminKey, {
        kind: 'mcp',
        serverId: mcp.id,
        toolName: 'whoami',
      }),
      201,
    );

    // Alice's turn reaches the protected server with her tokens; Bob, not connected, is not offered the tool.
    assert.match(await turnAnswer(alice.key, persona.id), /Server says: you are authorized/);
    assert.equal(await turnAnswer(bob.key, persona.id), 'No tool for that.');

    // Disconnect forgets the tokens: status false, nothing stored, the tool no longer offered.
    assert.equal((await call('DELETE', `/v1/mcp-servers/${mcp.id}/connection`, alice.key)).status, 204);
    assert.equal(await storage.mcpServers.getOAuthState({ serverId: mcp.id, userId: alice.id }), undefined);
    const after = await json<{ connected: boolean }>(
      await call('GET', `/v1/mcp-servers/${mcp.id}/connection`, alice.key),
      200,
    );
    assert.equal(after.connected, false);
    assert.equal(await turnAnswer(alice.key, persona.id), 'No tool for that.');
  });

  test('the callback is finished by another replica (or this server restarted): the pending state is in storage, hashed', async () => {
    const mcp = await json<{ id: string }>(
      await call('POST', '/v1/admin/mcp-servers', adminKey, {
        name: 'protected-replicas',
        endpoint: { transport: 'streamable-http', url: oauthServers.mcpUrl },
        authType: 'oauth',
      }),
      201,
    );
    const carol = await newUser('carol@example.com');
    const start = await startConnecting(carol.key, mcp.id, { returnTo: '/chat' });
    const state = new URL(start.authorizationUrl).searchParams.get('state') ?? '';
    const files = await Promise.all(
      [databasePath, `${databasePath}-wal`].map((path) => readFile(path).catch(() => Buffer.alloc(0))),
    );
    assert.ok(
      files.every((bytes) => !bytes.includes(state)),
      'the state itself is not stored',
    );
    const authorize = await fetch(start.authorizationUrl, { redirect: 'manual' });
    const callback = new URL(authorize.headers.get('location') ?? '');
    // A second server on the same storage, with nothing in memory of the first, gets the browser back.
    const replica = await createServer({
      storage,
      auth: 'api-keys',
      defaultModel: `openai-compatible:${model.url}/v1#scripted`,
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
      assert.equal(back.headers.get('location'), `/chat?mcpConnected=${mcp.id}`);
      const status = await json<{ connected: boolean }>(
        await call('GET', `/v1/mcp-servers/${mcp.id}/connection`, carol.key),
        200,
      );
      assert.equal(status.connected, true);
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
    const mcp = await json<{ id: string }>(
      await call('POST', '/v1/admin/mcp-servers', adminKey, {
        name: 'protected-expiry',
        endpoint: { transport: 'streamable-http', url: oauthServers.mcpUrl },
        authType: 'oauth',
      }),
      201,
    );
    const dave = await newUser('dave@example.com');
    const start = await startConnecting(dave.key, mcp.id);
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
    const stored = await storage.mcpServers.getOAuthState({ serverId: mcp.id, userId: dave.id });
    assert.equal(stored?.tokens, undefined, 'no tokens were exchanged');
  });

  test('a server without OAuth, or an unknown one, is refused naming the field', async () => {
    const plain = await json<{ id: string }>(
      await call('POST', '/v1/admin/mcp-servers', adminKey, {
        name: 'plain',
        endpoint: { transport: 'streamable-http', url: oauthServers.mcpUrl },
        authType: 'none',
      }),
      201,
    );
    const refused = await json<{ error: { field: string } }>(
      await call('POST', `/v1/mcp-servers/${plain.id}/connection`, adminKey, {}),
      400,
    );
    assert.equal(refused.error.field, 'path.serverId');
    await json(await call('POST', '/v1/mcp-servers/nope/connection', adminKey, {}), 404);
    assert.equal((await call('GET', '/v1/mcp-servers', undefined)).status, 401);
  });
});

describe('attacks on the MCP OAuth flow (issue 28, finding 3)', () => {
  test('no returnTo leaves this origin: the path is checked after the normalisation the redirect uses', async () => {
    const mcp = await json<{ id: string }>(
      await call('POST', '/v1/admin/mcp-servers', adminKey, {
        name: 'protected-redirects',
        endpoint: { transport: 'streamable-http', url: oauthServers.mcpUrl },
        authType: 'oauth',
      }),
      201,
    );
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
      await storage.mcpServers.deleteOAuthState({ serverId: mcp.id, userId: erin.id });
      const start = await startConnecting(erin.key, mcp.id, { returnTo });
      const back = await authorizeInBrowser(start.authorizationUrl, start.cookie);
      assert.equal(back.status, 302, await back.text());
      const location = back.headers.get('location') ?? '';
      assert.equal(location, `/?mcpConnected=${mcp.id}`, `${JSON.stringify(returnTo)} → ${location}`);
    }
    // A plain path with a query and fragment still goes where it says.
    await storage.mcpServers.deleteOAuthState({ serverId: mcp.id, userId: erin.id });
    const start = await startConnecting(erin.key, mcp.id, { returnTo: '/admin/mcp?tab=1#top' });
    const back = await authorizeInBrowser(start.authorizationUrl, start.cookie);
    assert.equal(back.headers.get('location'), `/admin/mcp?tab=1&mcpConnected=${mcp.id}#top`);
  });

  test("a victim who opens an attacker's authorization URL links nothing: the callback needs the starting browser", async () => {
    const mcp = await json<{ id: string }>(
      await call('POST', '/v1/admin/mcp-servers', adminKey, {
        name: 'protected-binding',
        endpoint: { transport: 'streamable-http', url: oauthServers.mcpUrl },
        authType: 'oauth',
      }),
      201,
    );
    const mallory = await newUser('mallory@example.com');
    const victim = await newUser('victim@example.com');
    const attack = await startConnecting(mallory.key, mcp.id);
    // The victim's browser has a binding cookie of its own (it connected before), but not Mallory's.
    const victimOwn = await startConnecting(victim.key, mcp.id);
    for (const cookie of [undefined, victimOwn.cookie]) {
      const attempt = await startConnecting(mallory.key, mcp.id);
      const refused = await json<{ error: { field: string; message: string } }>(
        await authorizeInBrowser(attempt.authorizationUrl, cookie),
        403,
      );
      assert.equal(refused.error.field, 'query.state');
      assert.match(refused.error.message, /another browser/);
    }
    const refused = await authorizeInBrowser(attack.authorizationUrl, victimOwn.cookie);
    assert.equal(refused.status, 403);
    const stored = await storage.mcpServers.getOAuthState({ serverId: mcp.id, userId: mallory.id });
    assert.equal(stored?.tokens, undefined, "no tokens were linked to the attacker's account");
  });
});

async function turnAnswer(key: string, personaId: string): Promise<string> {
  const chat = await json<{ id: string }>(await call('POST', '/v1/chats', key, { personaId }), 201);
  const events = await readSse(
    await call('POST', `/v1/chats/${chat.id}/messages`, key, { content: 'Who am I?' }),
  );
  return events
    .map((event) => JSON.parse(event.data) as { obj: { type: string; content?: string } })
    .filter((packet) => packet.obj.type === 'message-delta')
    .map((packet) => packet.obj.content)
    .join('');
}

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ScriptedModelServer, startScriptedModelServer } from '@toolbus/core/testing';
import { omitUndefined } from '@toolbus/spec';
import type { Storage } from '@toolbus/storage';
import { createInternalSearchTool, openDocumentIndex } from '@toolbus/tools';
import { callApi, jsonOf } from '../__fixtures__/api-calls.ts';
import {
  lookupThenAnswer,
  lookupToolFactories,
  openTestStorage,
  readSse,
} from '../__fixtures__/test-server.ts';
import { createServer, type ToolbusServer } from '../create-server.ts';
import { type ListeningServer, listen } from '../listen.ts';

let model: ScriptedModelServer;
let storage: Storage;
let server: ToolbusServer;
let http: ListeningServer;
let adminKey: string;

before(async () => {
  model = await startScriptedModelServer({ handler: lookupThenAnswer() });
  ({ storage } = await openTestStorage());
  server = await createServer({
    storage,
    auth: 'api-keys',
    defaultModel: `openai-compatible:${model.url}/v1#scripted`,
    builtInToolFactories: () => lookupToolFactories(),
    limits: { requestsPerMinute: 100_000 },
  });
  http = await listen(server, { port: 0 });
  const bootstrap = await server.access.bootstrapAdmin('admin@example.com');
  assert.ok(bootstrap);
  adminKey = bootstrap.key;
  assert.equal(await server.access.bootstrapAdmin('admin@example.com'), undefined, 'only once');
});
after(async () => {
  await http.close();
  await storage.close();
  await model.close();
});

function call(
  method: string,
  path: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string>; base?: string } = {},
) {
  const { key, body, headers, base } = options;
  return callApi({ baseUrl: base ?? http.url, method, path, key, body, headers });
}

const json = jsonOf;

async function newUser(
  email: string,
  scopes?: string[],
): Promise<{ id: string; key: string; keyId: string }> {
  const user = await json<{ id: string }>(
    await call('POST', '/v1/admin/users', { key: adminKey, body: { email } }),
    201,
  );
  const created = await json<{ key: string; apiKey: { id: string } }>(
    await call('POST', `/v1/admin/users/${user.id}/keys`, {
      key: adminKey,
      body: { name: 'test', ...omitUndefined({ scopes }) },
    }),
    201,
  );
  return { id: user.id, key: created.key, keyId: created.apiKey.id };
}

/** A new organisation named `name`, created by the admin (a 201): its id. */
async function newOrganization(name: string): Promise<{ id: string }> {
  return json<{ id: string }>(
    await call('POST', '/v1/admin/organizations', { key: adminKey, body: { name } }),
    201,
  );
}

describe('users and access', () => {
  test('no credential, a malformed one, or a revoked key is 401; keys are stored hashed', async () => {
    const carol = await newUser('carol@example.com');
    assert.equal((await call('GET', '/v1/chats')).status, 401);
    assert.equal((await call('GET', '/v1/chats', { headers: { authorization: 'Basic abc' } })).status, 401);
    assert.equal((await call('GET', '/v1/chats', { key: 'tb_not-a-key' })).status, 401);
    assert.equal((await call('GET', '/v1/chats', { key: carol.key })).status, 200);
    const [record] = await storage.access.listApiKeys(carol.id);
    assert.ok(record && record.keyHash !== carol.key && !record.keyHash.includes(carol.key.slice(3)));
    const listed = await json<{ keys: { id: string; prefix: string }[] }>(
      await call('GET', '/v1/keys', { key: carol.key }),
      200,
    );
    assert.ok(!JSON.stringify(listed).includes(carol.key), 'a key is never shown again');
    assert.equal((await call('DELETE', `/v1/keys/${carol.keyId}`, { key: carol.key })).status, 204);
    assert.equal((await call('GET', '/v1/chats', { key: carol.key })).status, 401);
  });

  test('scopes and roles: a user cannot reach the admin API nor mint an admin key; an mcp-only key cannot chat', async () => {
    const dave = await newUser('dave@example.com');
    assert.equal((await call('GET', '/v1/admin/users', { key: dave.key })).status, 403);
    // Without the keys scope no key is minted; with it, never one with a scope the minting key lacks.
    assert.equal((await call('POST', '/v1/keys', { key: dave.key, body: { name: 'x' } })).status, 403);
    const minter = await newUser('dave-minter@example.com', ['chat', 'keys']);
    const refused = await json<{ error: { field: string } }>(
      await call('POST', '/v1/keys', { key: minter.key, body: { name: 'x', scopes: ['admin'] } }),
      403,
    );
    assert.equal(refused.error.field, 'body.scopes.0');
    const mcpOnly = await newUser('erin@example.com', ['mcp']);
    assert.equal((await call('GET', '/v1/chats', { key: mcpOnly.key })).status, 403);
  });

  test("the cross-user matrix: every route with another user's key is 404 (their data) or 403 (admin)", async () => {
    const alice = await newUser('alice@example.com');
    const bob = await newUser('bob@example.com', ['chat', 'keys']);
    // An organisation Alice administers (Bob is in none but the default one).
    const aliceOrg = await newOrganization("Alice's team");
    await json(
      await call('POST', `/v1/organizations/${aliceOrg.id}/members`, {
        key: adminKey,
        body: { email: 'alice@example.com', role: 'admin' },
      }),
      201,
    );
    const chat = await json<{ id: string }>(
      await call('POST', '/v1/chats', { key: alice.key, body: { title: 'Alice secret' } }),
      201,
    );
    await readSse(
      await call('POST', `/v1/chats/${chat.id}/messages`, { key: alice.key, body: { content: 'Refunds?' } }),
    );
    const file = await json<{ id: string }>(
      await fetch(`${http.url}/v1/files?name=alice.txt`, {
        method: 'POST',
        headers: { authorization: `Bearer ${alice.key}`, 'content-type': 'text/plain' },
        body: 'alice private notes',
      }),
      201,
    );
    const memory = await json<{ id: string }>(
      await call('POST', '/v1/memories', { key: alice.key, body: { text: 'Alice likes tea' } }),
      201,
    );
    const aliceApp = await json<{ id: number }>(
      await call('POST', '/v1/apps', {
        key: alice.key,
        body: {
          name: 'alice-crm',
          urlPatterns: ['https://crm\\.example/.*'],
          headers: { Authorization: 'Bearer {{user.token}}' },
          userValues: { token: 'ALICE-APP-SECRET' },
        },
      }),
      201,
    );
    // An invitation for Alice's email (to an organisation she is not in yet).
    const invitation = await storage.organizations.invite({
      organizationId: (await storage.organizations.create({ name: 'Invites Alice' })).id,
      email: 'alice@example.com',
      role: 'member',
      invitedBy: null,
    });
    const values: Record<string, string> = {
      invitationId: invitation.id,
      appId: String(aliceApp.id),
      approvalId: 'no-such-approval',
      elicitationId: 'no-such-elicitation',
      chatId: chat.id,
      turn: '0',
      fileId: file.id,
      memoryId: memory.id,
      keyId: alice.keyId,
      userId: alice.id,
      organizationId: aliceOrg.id,
      // No MCP server is anyone's data; a missing one is 404 like any other id.
      serverId: 'no-such-server',
      // Personas are no one's data: the MCP endpoint checks the key's scope (Bob's has no "mcp").
      personaId: 'default',
    };
    const bodies: Record<string, unknown> = {
      createChat: {},
      createConnectedApp: {
        name: 'bob-crm',
        urlPatterns: ['https://crm\\.example/.*'],
        headers: { Authorization: 'Bearer {{user.token}}' },
      },
      setConnectedAppValues: { values: { token: 'BOB-STOLEN' } },
      decideApproval: { decision: 'approve' },
      answerElicitation: { action: 'decline' },
      renameChat: { title: 'Stolen' },
      sendMessage: { content: 'hi' },
      createApiKey: { name: 'bob' },
      addMemory: { text: 'Bob' },
      updateMySettings: { memoryToolEnabled: true },
      updateMemory: { text: 'overwritten' },
      createUser: { email: 'mallory@example.com' },
      setUserRole: { role: 'admin' },
      createUserApiKey: { name: 'x' },
      connectMcpServer: {},
      setMcpCredentials: { values: { api_key: 'BOB-KEY' } },
      addOrganizationMember: { email: 'bob@example.com', role: 'admin' },
      setOrganizationMemberRole: { role: 'member' },
      sendUiMessage: { id: chat.id, messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }] },
    };
    // Routes that name Alice's data in the body rather than the path.
    const bodyNamesHerData = new Set(['sendUiMessage', 'getDocumentText']);
    const secrets = [
      chat.id,
      file.id,
      memory.id,
      alice.keyId,
      'alice@example.com',
      'Alice secret',
      'alice-crm',
      'ALICE-APP-SECRET',
    ];
    let checked = 0;
    for (const route of server.routes.definitions) {
      if (route.access.kind === 'public') continue;
      const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
      let path = route.path;
      for (const name of names) {
        // Admin routes refuse a user before reading anything: any id will do there.
        const value = values[name] ?? (route.access.kind === 'admin' ? 'any' : undefined);
        assert.ok(value, `the matrix needs a value for {${name}} (${route.operationId})`);
        path = path.replace(`{${name}}`, encodeURIComponent(value));
      }
      if (route.operationId === 'uploadFile') path += '?name=bob.txt';
      if (route.operationId === 'getDocumentText')
        path += `?link=${encodeURIComponent('file:///alice/notes.md')}`;
      if (route.body && route.access.kind !== 'admin' && route.tag !== 'mcp')
        assert.ok(route.operationId in bodies, `the matrix needs a body for ${route.operationId}`);
      const body = route.operationId === 'uploadFile' ? 'bob bytes' : bodies[route.operationId];
      const response = await fetch(`${http.url}${path}`, {
        method: route.method.toUpperCase(),
        headers: {
          authorization: `Bearer ${bob.key}`,
          'content-type': route.operationId === 'uploadFile' ? 'text/plain' : 'application/json',
        },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      const text = await response.text();
      const label = `${route.method.toUpperCase()} ${route.path} → ${response.status} ${text.slice(0, 200)}`;
      if (route.access.kind === 'admin' || route.tag === 'mcp') assert.equal(response.status, 403, label);
      else if (names.length > 0 || bodyNamesHerData.has(route.operationId))
        assert.equal(response.status, 404, label);
      else assert.ok(response.status < 300, label);
      // An id the caller sent may be echoed in the error; nothing else of Alice's may appear.
      for (const secret of secrets) {
        const sent = `${path} ${JSON.stringify(body ?? '')}`;
        if (!sent.includes(encodeURIComponent(secret)) && !sent.includes(secret))
          assert.ok(!text.includes(secret), `${label} leaks ${secret}`);
      }
      // Without any credential, every route is 401.
      const anonymous = await fetch(`${http.url}${path}`, { method: route.method.toUpperCase() });
      assert.equal(anonymous.status, 401, `${route.operationId} without a key`);
      checked += 1;
    }
    assert.ok(checked >= 20, `checked ${checked} routes`);
    // Alice's data is untouched.
    const detail = await json<{ title: string; turns: unknown[] }>(
      await call('GET', `/v1/chats/${chat.id}`, { key: alice.key }),
      200,
    );
    assert.equal(detail.title, 'Alice secret');
    // Alice's app and her value survived Bob's attempts.
    assert.deepEqual(
      await storage.userSecrets.get({ kind: 'connectedAppValues', ownerId: aliceApp.id, userId: alice.id }),
      {
        token: 'ALICE-APP-SECRET',
      },
    );
    assert.equal(detail.turns.length, 1);
    assert.equal(
      await (await call('GET', `/v1/files/${file.id}/content`, { key: alice.key })).text(),
      'alice private notes',
    );
    const memories = await json<{ memories: { text: string }[] }>(
      await call('GET', '/v1/memories', { key: alice.key }),
      200,
    );
    assert.deepEqual(
      memories.memories.map((entry) => entry.text),
      ['Alice likes tea'],
    );
    assert.equal((await call('GET', '/v1/me', { key: alice.key })).status, 200);
  });

  test('web sessions: an HTTP-only cookie, and a CSRF token on every changing request', async () => {
    const frank = await newUser('frank@example.com');
    const signIn = await call('POST', '/v1/session', { key: frank.key });
    const { csrfToken } = await json<{ csrfToken: string }>(signIn, 201);
    const setCookie = signIn.headers.get('set-cookie') ?? '';
    assert.match(setCookie, /HttpOnly/);
    assert.match(setCookie, /SameSite=Strict/);
    const cookie = setCookie.split(';')[0] as string;
    assert.equal((await call('GET', '/v1/chats', { headers: { cookie } })).status, 200);
    const withoutCsrf = await json<{ error: { field: string } }>(
      await call('POST', '/v1/chats', { headers: { cookie }, body: {} }),
      403,
    );
    assert.equal(withoutCsrf.error.field, 'header.x-csrf-token');
    assert.equal(
      (await call('POST', '/v1/chats', { headers: { cookie, 'x-csrf-token': 'wrong' }, body: {} })).status,
      403,
    );
    assert.equal(
      (await call('POST', '/v1/chats', { headers: { cookie, 'x-csrf-token': csrfToken }, body: {} })).status,
      201,
    );
    assert.equal(
      (await call('DELETE', '/v1/session', { headers: { cookie, 'x-csrf-token': csrfToken } })).status,
      204,
    );
    assert.equal((await call('GET', '/v1/chats', { headers: { cookie } })).status, 401);
  });

  test('per-user rate and concurrency limits answer 429 with Retry-After', async () => {
    const slowModel = await startScriptedModelServer({ handler: lookupThenAnswer() });
    const limited = await createServer({
      storage,
      auth: 'api-keys',
      defaultModel: `openai-compatible:${slowModel.url}/v1#scripted`,
      builtInToolFactories: () => lookupToolFactories({ delayMs: 60_000 }),
      limits: { requestsPerMinute: 6, concurrentTurnsPerUser: 1 },
    });
    const limitedHttp = await listen(limited, { port: 0 });
    try {
      const gina = await newUser('gina@example.com');
      const base = limitedHttp.url;
      const first = await json<{ id: string }>(
        await call('POST', '/v1/chats', { base, key: gina.key, body: {} }),
        201,
      );
      const second = await json<{ id: string }>(
        await call('POST', '/v1/chats', { base, key: gina.key, body: {} }),
        201,
      );
      const running = await call('POST', `/v1/chats/${first.id}/messages?stream=none`, {
        base,
        key: gina.key,
        body: { content: 'Refunds?' },
      });
      assert.equal(running.status, 202);
      const busy = await call('POST', `/v1/chats/${second.id}/messages?stream=none`, {
        base,
        key: gina.key,
        body: { content: 'Refunds?' },
      });
      const busyBody = await json<{ error: { code: string } }>(busy, 429);
      assert.equal(busyBody.error.code, 'rate_limited');
      assert.ok(Number(busy.headers.get('retry-after')) > 0);
      assert.equal(
        (await call('POST', `/v1/chats/${first.id}/turns/0/stop`, { base, key: gina.key })).status,
        200,
      );
      let limitedResponse: Response | undefined;
      for (let attempt = 0; attempt < 10 && !limitedResponse; attempt += 1) {
        const response = await call('GET', '/v1/chats', { base, key: gina.key });
        if (response.status === 429) limitedResponse = response;
        else await response.text();
      }
      assert.ok(limitedResponse, 'the request limit is reached');
      assert.match((await limitedResponse.json()).error.message, /Too many requests/);
      assert.ok(Number(limitedResponse.headers.get('retry-after')) >= 1);
    } finally {
      await limitedHttp.close();
      await slowModel.close();
    }
  });

  test('a server without keys refuses to bind anything but loopback', async () => {
    const local = await createServer({ storage, auth: 'local', defaultModel: 'openai:gpt-4.1' });
    await assert.rejects(listen(local, { host: '0.0.0.0', port: 0 }), /not a loopback address/);
  });
});

describe('organisations', () => {
  test('the cross-organisation case: an org admin administers only their org; data is scoped to the org acted in', async () => {
    const acme = await newOrganization('Acme');
    const globex = await newOrganization('Globex');
    const addMember = async (
      organizationId: string,
      email: string,
      role: 'admin' | 'member',
      key = adminKey,
    ) =>
      json<{ userId: string }>(
        await call('POST', `/v1/organizations/${organizationId}/members`, { key, body: { email, role } }),
        201,
      );
    const carol = await addMember(acme.id, 'carol@acme.example', 'admin');
    const dave = await addMember(globex.id, 'dave@globex.example', 'admin');
    const keyOf = async (userId: string, organizationId?: string) =>
      (
        await json<{ key: string }>(
          await call('POST', `/v1/admin/users/${userId}/keys`, {
            key: adminKey,
            body: { name: 'k', scopes: ['chat', 'keys'], ...omitUndefined({ organizationId }) },
          }),
          201,
        )
      ).key;
    const carolKey = await keyOf(carol.userId);
    const daveKey = await keyOf(dave.userId);
    // A deployment admin adds members directly; an org admin invites into their own org (never another), and
    // the account joins when it accepts.
    const erin = await addMember(acme.id, 'erin@orgs.example', 'member');
    await json(
      await call('POST', `/v1/organizations/${globex.id}/members`, {
        key: daveKey,
        body: { email: 'erin@orgs.example', role: 'member' },
      }),
      202,
    );
    // A key acts in one organisation: Erin, in two, holds one key for each.
    const erinKey = await keyOf(erin.userId);
    const { invitations } = await json<{ invitations: { id: string; organizationId: string }[] }>(
      await call('GET', '/v1/invitations', { key: erinKey }),
      200,
    );
    assert.deepEqual(
      invitations.map((invitation) => invitation.organizationId),
      [globex.id],
    );
    await json(await call('POST', `/v1/invitations/${invitations[0]?.id}/accept`, { key: erinKey }), 200);
    const erinGlobexKey = await keyOf(erin.userId, globex.id);
    const refused = await json<{ error: { field: string } }>(
      await call('POST', `/v1/organizations/${acme.id}/members`, {
        key: daveKey,
        body: { email: 'mole@globex.example', role: 'admin' },
      }),
      404,
    );
    assert.equal(refused.error.field, 'path.organizationId');
    assert.equal((await call('GET', `/v1/organizations/${acme.id}/members`, { key: daveKey })).status, 404);
    assert.equal(
      (await call('DELETE', `/v1/organizations/${acme.id}/members/${carol.userId}`, { key: daveKey })).status,
      404,
    );
    assert.equal(
      (
        await call('PATCH', `/v1/organizations/${acme.id}/members/${erin.userId}`, {
          key: daveKey,
          body: { role: 'admin' },
        })
      ).status,
      404,
    );
    const globexMembers = await json<{ members: { email: string; role: string }[] }>(
      await call('GET', `/v1/organizations/${globex.id}/members`, { key: daveKey }),
      200,
    );
    assert.deepEqual(
      globexMembers.members.map((member) => [member.email, member.role]),
      [
        ['dave@globex.example', 'admin'],
        ['erin@orgs.example', 'member'],
      ],
    );
    // A member is not an admin of their org, and an org admin is not a deployment admin.
    assert.equal((await call('GET', `/v1/organizations/${acme.id}/members`, { key: erinKey })).status, 403);
    assert.equal((await call('GET', '/v1/admin/users', { key: carolKey })).status, 403);
    assert.equal(
      (await call('POST', '/v1/admin/organizations', { key: carolKey, body: { name: 'x' } })).status,
      403,
    );
    const erinOrgs = await json<{ organizations: { id: string; role: string }[] }>(
      await call('GET', '/v1/organizations', { key: erinKey }),
      200,
    );
    assert.deepEqual(
      erinOrgs.organizations.map((organization) => [organization.id, organization.role]),
      [
        [acme.id, 'member'],
        [globex.id, 'member'],
      ],
    );

    // Erin's chat and file made in Acme are invisible when she acts in Globex, and back when she acts in Acme.
    const inAcme = { 'x-toolbus-organization': acme.id };
    const inGlobex = { 'x-toolbus-organization': globex.id };
    const chat = await json<{ id: string; organizationId: string }>(
      await call('POST', '/v1/chats', { key: erinKey, headers: inAcme, body: { title: 'Acme plans' } }),
      201,
    );
    assert.equal(chat.organizationId, acme.id);
    const file = await json<{ id: string }>(
      await fetch(`${http.url}/v1/files?name=plan.txt`, {
        method: 'POST',
        headers: { authorization: `Bearer ${erinKey}`, 'content-type': 'text/plain', ...inAcme },
        body: 'acme secret plan',
      }),
      201,
    );
    assert.equal(
      (await call('GET', `/v1/chats/${chat.id}`, { key: erinGlobexKey, headers: inGlobex })).status,
      404,
    );
    assert.equal(
      (await call('GET', `/v1/files/${file.id}`, { key: erinGlobexKey, headers: inGlobex })).status,
      404,
    );
    const globexChats = await json<{ chats: { id: string }[] }>(
      await call('GET', '/v1/chats', { key: erinGlobexKey, headers: inGlobex }),
      200,
    );
    assert.ok(!globexChats.chats.some((entry) => entry.id === chat.id));
    const globexChat = await json<{ id: string }>(
      await call('POST', '/v1/chats', { key: erinGlobexKey, headers: inGlobex, body: {} }),
      201,
    );
    const attach = await json<{ error: { field: string } }>(
      await call('POST', `/v1/chats/${globexChat.id}/messages`, {
        key: erinGlobexKey,
        headers: inGlobex,
        body: { content: 'read it', fileIds: [file.id] },
      }),
      400,
    );
    assert.equal(attach.error.field, 'body.fileIds.0');
    assert.equal((await call('GET', `/v1/chats/${chat.id}`, { key: erinKey, headers: inAcme })).status, 200);
    // A memory saved in Acme is neither listed nor changeable nor deletable while she acts in Globex.
    const memory = await json<{ id: string; organizationId: string }>(
      await call('POST', '/v1/memories', {
        key: erinKey,
        headers: inAcme,
        body: { text: 'Erin works on Acme' },
      }),
      201,
    );
    assert.equal(memory.organizationId, acme.id);
    const memoryTexts = async (key: string) =>
      (
        await json<{ memories: { text: string }[] }>(await call('GET', '/v1/memories', { key }), 200)
      ).memories.map((entry) => entry.text);
    assert.deepEqual(await memoryTexts(erinGlobexKey), []);
    assert.equal(
      (await call('DELETE', `/v1/memories/${memory.id}`, { key: erinGlobexKey, headers: inGlobex })).status,
      404,
    );
    assert.equal(
      (
        await call('PATCH', `/v1/memories/${memory.id}`, {
          key: erinGlobexKey,
          headers: inGlobex,
          body: { text: 'overwritten' },
        })
      ).status,
      404,
    );
    assert.deepEqual(await memoryTexts(erinKey), ['Erin works on Acme']);
    assert.equal(
      (await call('DELETE', `/v1/memories/${memory.id}`, { key: erinKey, headers: inAcme })).status,
      204,
    );
    assert.deepEqual(await memoryTexts(erinKey), []);
    // Naming an organisation she is not in is refused, not ignored.
    const foreign = await json<{ error: { field: string } }>(
      await call('GET', '/v1/chats', { key: daveKey, headers: inAcme }),
      403,
    );
    assert.equal(foreign.error.field, 'header.x-toolbus-organization');
    const me = await json<{ organization: { id: string; role: string } }>(
      await call('GET', '/v1/me', { key: erinGlobexKey, headers: inGlobex }),
      200,
    );
    assert.deepEqual(me.organization, { id: globex.id, role: 'member' });

    // Her Acme key cannot be switched into Globex (where she is a member too), and acts in Acme without a header.
    const switched = await json<{ error: { field: string; message: string } }>(
      await call('GET', '/v1/chats', { key: erinKey, headers: inGlobex }),
      403,
    );
    assert.equal(switched.error.field, 'header.x-toolbus-organization');
    assert.match(switched.error.message, /acts only in organisation/);
    const acmeChats = await json<{ chats: { id: string }[] }>(
      await call('GET', '/v1/chats', { key: erinKey }),
      200,
    );
    assert.deepEqual(
      acmeChats.chats.map((entry) => entry.id),
      [chat.id],
    );
    // Each key shows its organisation; a key made with a key is made in that key's organisation.
    const made = await json<{ key: string; apiKey: { organizationId: string } }>(
      await call('POST', '/v1/keys', { key: erinGlobexKey, body: { name: 'laptop' } }),
      201,
    );
    assert.equal(made.apiKey.organizationId, globex.id);
    assert.equal(
      (await call('POST', '/v1/keys', { key: erinGlobexKey, headers: inAcme, body: { name: 'x' } })).status,
      403,
    );
    const listed = await json<{ keys: { organizationId: string }[] }>(
      await call('GET', '/v1/keys', { key: erinKey }),
      200,
    );
    assert.deepEqual(
      listed.keys.map((key) => key.organizationId),
      [acme.id, globex.id, globex.id],
    );
    // Nor can a key be turned into a browser session that switches: the session acts in the key's organisation.
    const signIn = await call('POST', '/v1/session', { key: erinGlobexKey });
    const { csrfToken } = await json<{ csrfToken: string }>(signIn, 201);
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] as string;
    assert.equal((await call('GET', '/v1/chats', { headers: { cookie, ...inAcme } })).status, 403);
    const sessionChats = await json<{ chats: { id: string }[] }>(
      await call('GET', '/v1/chats', { headers: { cookie } }),
      200,
    );
    assert.ok(
      !sessionChats.chats.some((entry) => entry.id === chat.id),
      "the session sees Globex's chats only",
    );
    assert.equal(
      (
        await call('POST', '/v1/chats', {
          headers: { cookie, 'x-csrf-token': csrfToken, ...inAcme },
          body: {},
        })
      ).status,
      403,
    );
    // No key of a user for an organisation they are not in; a member removed from an organisation loses its keys.
    const outside = await json<{ error: { field: string } }>(
      await call('POST', `/v1/admin/users/${dave.userId}/keys`, {
        key: adminKey,
        body: { name: 'x', organizationId: acme.id },
      }),
      400,
    );
    assert.equal(outside.error.field, 'body.organizationId');
    assert.equal(
      (await call('DELETE', `/v1/organizations/${acme.id}/members/${erin.userId}`, { key: carolKey })).status,
      204,
    );
    assert.equal((await call('GET', '/v1/chats', { key: erinKey })).status, 403);
    assert.equal((await call('GET', '/v1/chats', { key: made.key })).status, 200);
  });

  test("documents and memories per organisation: a turn searches and remembers only its organisation's, over HTTP", async () => {
    const deploymentPrompt = 'You are the deployment assistant.';
    const searchModel = await startScriptedModelServer({
      handler: (request) => {
        const last = request.messages.at(-1);
        if (last?.role === 'tool')
          return [{ type: 'text', text: `Found: ${last.toolResults[0]?.content ?? ''}` }];
        if (request.toolNames.includes('internal_search'))
          return [
            {
              type: 'tool-call',
              id: 'call_s',
              name: 'internal_search',
              arguments: { queries: [last?.text ?? ''] },
            },
          ];
        return [{ type: 'text', text: 'No search.' }];
      },
    });
    const index = await openDocumentIndex({ path: ':memory:' });
    const orgServer = await createServer({
      storage,
      auth: 'api-keys',
      defaultModel: `openai-compatible:${searchModel.url}/v1#scripted`,
      systemPrompt: deploymentPrompt,
      documentIndex: index,
      builtInToolFactories: (context) => {
        // The turn's view of the index: the only one a turn's tools may read.
        const view = context.documentIndex;
        assert.ok(view, "a turn gets its organisation's view of the index");
        return new Map([['SearchTool', () => createInternalSearchTool({ index: view })]]);
      },
      limits: { requestsPerMinute: 100_000 },
    });
    const orgHttp = await listen(orgServer, { port: 0 });
    const base = orgHttp.url;
    try {
      const initech = await newOrganization('Initech');
      const umbrella = await newOrganization('Umbrella');
      const member = async (organizationId: string, email: string) =>
        (
          await json<{ userId: string }>(
            await call('POST', `/v1/organizations/${organizationId}/members`, {
              key: adminKey,
              body: { email, role: 'member' },
            }),
            201,
          )
        ).userId;
      const keyIn = async (userId: string, organizationId: string, scopes?: string[]) =>
        (
          await json<{ key: string }>(
            await call('POST', `/v1/admin/users/${userId}/keys`, {
              key: adminKey,
              body: { name: 'k', organizationId, ...omitUndefined({ scopes }) },
            }),
            201,
          )
        ).key;
      const me = await json<{ id: string }>(await call('GET', '/v1/me', { key: adminKey }), 200);
      const initechAdmin = await keyIn(me.id, initech.id, ['chat', 'admin']);
      const umbrellaAdmin = await keyIn(me.id, umbrella.id, ['chat', 'admin']);
      const ivan = await member(initech.id, 'ivan@initech.example');
      await member(umbrella.id, 'ivan@initech.example');
      const judy = await member(umbrella.id, 'judy@umbrella.example');
      const ivanKey = await keyIn(ivan, initech.id);
      const ivanUmbrellaKey = await keyIn(ivan, umbrella.id);
      const judyKey = await keyIn(judy, umbrella.id);

      // Each organisation's admin indexes a document; the same name in both is two documents.
      const upload = async (key: string, name: string, text: string) =>
        json<{ sourceId: string }>(
          await fetch(`${base}/v1/admin/documents/uploads?name=${name}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'text/markdown' },
            body: text,
          }),
          201,
        );
      await upload(initechAdmin, 'plan.md', '# Falcon\n\nInitech launches the falcon rocket in May.');
      await upload(umbrellaAdmin, 'plan.md', '# Vaccine\n\nUmbrella ships the falcon vaccine in June.');
      await upload(umbrellaAdmin, 'extra.md', '# Extra\n\nUmbrella extra notes.');
      const listOf = async (key: string) =>
        (
          await json<{ documents: { sourceId: string; title: string; uploadedBy?: string }[] }>(
            await call('GET', '/v1/admin/documents/list', { key, base }),
            200,
          )
        ).documents;
      assert.deepEqual(
        (await listOf(initechAdmin)).map((document) => [
          document.sourceId,
          document.title,
          document.uploadedBy,
        ]),
        [['upload:plan.md', 'Falcon', me.id]],
      );
      assert.deepEqual(
        (await listOf(umbrellaAdmin)).map((document) => document.title),
        ['Extra', 'Vaccine'],
      );
      assert.deepEqual(
        await json(await call('GET', '/v1/admin/documents', { key: initechAdmin, base }), 200),
        { documents: 1, chunks: 1 },
      );
      // Umbrella's admin cannot delete Initech's document (only Umbrella's own of that name, and none it lacks).
      assert.equal(
        (await call('DELETE', '/v1/admin/documents?sourceId=upload%3Aextra.md', { key: initechAdmin, base }))
          .status,
        404,
      );
      assert.equal(
        (await call('DELETE', '/v1/admin/documents?sourceId=upload%3Aextra.md', { key: umbrellaAdmin, base }))
          .status,
        204,
      );
      assert.equal((await listOf(umbrellaAdmin)).length, 1);
      assert.equal((await listOf(initechAdmin)).length, 1, "Initech's document is untouched");
      // A member is no admin: the document routes refuse them.
      assert.equal((await call('GET', '/v1/admin/documents/list', { key: ivanKey, base })).status, 403);

      // Memories: Ivan (memory on) has one in each organisation; Judy has one but memory off.
      for (const key of [ivanKey, ivanUmbrellaKey]) {
        await json(
          await call('PATCH', '/v1/me/settings', { key, base, body: { memoryToolEnabled: true } }),
          200,
        );
      }
      const memories: [key: string, text: string][] = [
        [ivanKey, 'Ivan measures in metric units'],
        [ivanUmbrellaKey, 'Ivan consults for Umbrella'],
        [judyKey, 'Judy is vegetarian'],
      ];
      for (const [key, text] of memories) {
        await json(await call('POST', '/v1/memories', { key, base, body: { text } }), 201);
      }

      const turn = async (key: string, question: string) => {
        const chat = await json<{ id: string }>(
          await call('POST', '/v1/chats', { key, base, body: {} }),
          201,
        );
        await readSse(
          await call('POST', `/v1/chats/${chat.id}/messages`, { key, base, body: { content: question } }),
        );
        const requests = searchModel.requests.filter((request) =>
          request.messages.some((message) => message.role === 'user' && message.text === question),
        );
        const system = requests[0]?.messages.find((message) => message.role === 'system')?.text ?? '';
        const toolResult = requests.at(-1)?.messages.at(-1)?.toolResults[0]?.content ?? '';
        return { system, toolResult };
      };
      const ivanTurn = await turn(ivanKey, 'falcon plans (ivan)');
      assert.match(ivanTurn.toolResult, /Initech launches the falcon rocket/);
      assert.doesNotMatch(
        ivanTurn.toolResult,
        /Umbrella/,
        "internal_search never returns another organisation's document",
      );
      assert.ok(ivanTurn.system.startsWith(deploymentPrompt));
      assert.match(ivanTurn.system, /Ivan measures in metric units/);
      assert.doesNotMatch(
        ivanTurn.system,
        /consults for Umbrella/,
        'his memories of another organisation stay out',
      );
      assert.doesNotMatch(ivanTurn.system, /vegetarian/, "another user's memories never reach his prompt");

      const ivanUmbrellaTurn = await turn(ivanUmbrellaKey, 'falcon plans (ivan at umbrella)');
      assert.match(ivanUmbrellaTurn.toolResult, /Umbrella ships the falcon vaccine/);
      assert.doesNotMatch(ivanUmbrellaTurn.toolResult, /Initech/);
      assert.match(ivanUmbrellaTurn.system, /Ivan consults for Umbrella/);
      assert.doesNotMatch(ivanUmbrellaTurn.system, /metric/);

      const judyTurn = await turn(judyKey, 'falcon plans (judy)');
      assert.doesNotMatch(judyTurn.toolResult, /Initech/);
      assert.equal(judyTurn.system, deploymentPrompt, 'memory off: no memories in the prompt');
    } finally {
      await orgHttp.close();
      await orgServer.close();
      await index.close();
      await searchModel.close();
    }
  });
});

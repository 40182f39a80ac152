import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { omitUndefined } from '@toolbus/spec';
import type { Storage } from '@toolbus/storage';
import { callApi, jsonOf } from '../__fixtures__/api-calls.ts';
import { openTestStorage } from '../__fixtures__/test-server.ts';
import { createServer } from '../create-server.ts';
import { type ListeningServer, listen } from '../listen.ts';

// The attacks of issue 28, findings 1 and 2, against two replicas of `serve --auth api-keys` sharing one database.
let storage: Storage;
let replicaStorage: Storage;
let http: ListeningServer;
let replica: ListeningServer;
let adminKey: string;

before(async () => {
  const opened = await openTestStorage();
  storage = opened.storage;
  // A second replica: its own process state and its own connection to the same database.
  replicaStorage = (await openTestStorage(opened.path)).storage;
  const options = {
    auth: 'api-keys',
    defaultModel: 'openai-compatible:http://127.0.0.1:9/v1#unused',
    limits: { requestsPerMinute: 100_000 },
  } as const;
  const server = await createServer({ storage, ...options });
  http = await listen(server, { port: 0 });
  replica = await listen(await createServer({ storage: replicaStorage, ...options }), { port: 0 });
  const bootstrap = await server.access.bootstrapAdmin('root@example.com');
  assert.ok(bootstrap);
  adminKey = bootstrap.key;
});
after(async () => {
  await http.close();
  await replica.close();
  await replicaStorage.close();
  await storage.close();
});

function call(
  method: string,
  path: string,
  options: { key?: string; body?: unknown; cookie?: string; csrf?: string; base?: string } = {},
) {
  return callApi({
    baseUrl: options.base ?? http.url,
    method,
    path,
    key: options.key,
    body: options.body,
    headers: omitUndefined({
      cookie: options.cookie || undefined,
      'x-csrf-token': options.csrf || undefined,
    }),
  });
}

const json = jsonOf;

/** A key of the bootstrap admin with only `scopes`. */
async function adminKeyWith(scopes: string[]): Promise<{ key: string; id: string }> {
  const created = await json<{ key: string; apiKey: { id: string } }>(
    await call('POST', '/v1/keys', { key: adminKey, body: { name: scopes.join('+'), scopes } }),
    201,
  );
  return { key: created.key, id: created.apiKey.id };
}

async function signIn(key: string, base?: string): Promise<{ cookie: string; csrf: string }> {
  const response = await call('POST', '/v1/session', { key, ...omitUndefined({ base: base || undefined }) });
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const { csrfToken } = await json<{ csrfToken: string }>(response, 201);
  return { cookie, csrf: csrfToken };
}

describe('a key is a boundary (issue 28, finding 1)', () => {
  test("an admin's chat-only key cannot mint a key, least of all an admin key", async () => {
    const chatOnly = await adminKeyWith(['chat']);
    for (const scopes of [['chat', 'admin', 'mcp'], ['admin'], undefined]) {
      const response = await call('POST', '/v1/keys', {
        key: chatOnly.key,
        body: { name: 'escalate', ...omitUndefined({ scopes }) },
      });
      const body = await json<{ error: { code: string; message: string } }>(response, 403);
      assert.match(body.error.message, /"keys" scope/);
    }
    // Nor through the admin API: that needs the admin scope, which the key lacks.
    assert.equal(
      (await call('POST', '/v1/admin/users/x/keys', { key: chatOnly.key, body: { name: 'x' } })).status,
      403,
    );
    const keys = await storage.access.listApiKeys(
      (await storage.users.get({ email: 'root@example.com' }))!.id,
    );
    assert.ok(!keys.some((key) => key.name === 'escalate'), 'no key was made');
  });

  test('a key with the keys scope mints only scopes it holds itself', async () => {
    const minter = await adminKeyWith(['chat', 'keys']);
    const refused = await json<{ error: { field: string; message: string } }>(
      await call('POST', '/v1/keys', { key: minter.key, body: { name: 'x', scopes: ['chat', 'admin'] } }),
      403,
    );
    assert.equal(refused.error.field, 'body.scopes.1');
    assert.match(refused.error.message, /"admin"/);
    const made = await json<{ key: string; apiKey: { scopes: string[] } }>(
      await call('POST', '/v1/keys', { key: minter.key, body: { name: 'y', scopes: ['chat'] } }),
      201,
    );
    assert.deepEqual(made.apiKey.scopes, ['chat']);
    // The admin API minting for another user is held to the same rule: admin+keys cannot hand out mcp.
    const narrowAdmin = await adminKeyWith(['admin', 'keys']);
    const user = await json<{ id: string }>(
      await call('POST', '/v1/admin/users', { key: adminKey, body: { email: 'minted@example.com' } }),
      201,
    );
    await json(
      await call('POST', `/v1/admin/users/${user.id}/keys`, {
        key: narrowAdmin.key,
        body: { name: 'z', scopes: ['mcp'] },
      }),
      403,
    );
  });

  test('a session made with a chat-only key holds only chat: no admin API, no stdio MCP server, no key minting', async () => {
    const chatOnly = await adminKeyWith(['chat']);
    const session = await signIn(chatOnly.key);
    const me = await json<{ scopes: string[] }>(await call('GET', '/v1/me', { cookie: session.cookie }), 200);
    assert.deepEqual(me.scopes, ['chat']);
    assert.equal((await call('GET', '/v1/admin/users', { cookie: session.cookie })).status, 403);
    const stdio = await call('POST', '/v1/admin/mcp-servers', {
      cookie: session.cookie,
      csrf: session.csrf,
      body: {
        name: 'pwn',
        endpoint: { transport: 'stdio', command: 'touch', args: ['/tmp/pwned'] },
        authType: 'none',
      },
    });
    assert.equal(stdio.status, 403, await stdio.text());
    assert.equal(
      (
        await call('POST', '/v1/keys', {
          cookie: session.cookie,
          csrf: session.csrf,
          body: { name: 'from session', scopes: ['admin'] },
        })
      ).status,
      403,
    );
    // A session made from that session is no wider.
    const again = await call('POST', '/v1/session', { cookie: session.cookie, csrf: session.csrf });
    const cookie = (again.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    await json(again, 201);
    assert.deepEqual(
      (await json<{ scopes: string[] }>(await call('GET', '/v1/me', { cookie }), 200)).scopes,
      ['chat'],
    );
  });
});

describe('revoking a key ends its sessions (issue 28, finding 2)', () => {
  test('at once, on this replica and on another one', async () => {
    const key = await adminKeyWith(['chat', 'mcp']);
    const here = await signIn(key.key);
    const there = await signIn(key.key, replica.url);
    const unrelated = await signIn((await adminKeyWith(['chat'])).key);
    assert.equal((await call('GET', '/v1/me', { cookie: here.cookie })).status, 200);
    assert.equal((await call('GET', '/v1/me', { cookie: there.cookie, base: replica.url })).status, 200);
    // Both sessions are used on the replica first, so anything it could cache, it has.
    assert.equal((await call('GET', '/v1/me', { cookie: here.cookie, base: replica.url })).status, 200);

    await json(await call('DELETE', `/v1/keys/${key.id}`, { key: adminKey }), 204);

    for (const base of [http.url, replica.url]) {
      for (const session of [here, there]) {
        assert.equal((await call('GET', '/v1/me', { cookie: session.cookie, base })).status, 401);
      }
    }
    assert.equal((await call('GET', '/v1/me', { cookie: unrelated.cookie })).status, 200);
  });
});

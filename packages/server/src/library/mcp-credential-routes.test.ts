// Per-user MCP credentials over the HTTP API: an admin stores a server's header template (deny-listed names
// dropped and named, fixed values refused), each user stores their own values (encrypted, never shown back, CR/LF
// refused), only for servers they may use, and the egress proxy then sends each user's own headers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_ORGANIZATION_ID, setMcpServerAccess } from '@toolbus/storage';
import { type AdminApiServer, startAdminApiServer } from '../__fixtures__/admin-api-server.ts';
import { storageMcpCredentials } from '../egress/storage-mcp-egress.ts';

let api: AdminApiServer;
let serverId: string;
let alice: { id: string; key: string };
let bob: { id: string; key: string };

before(async () => {
  api = await startAdminApiServer();
  serverId = (
    await api.storage.mcpServers.create({
      name: 'tickets',
      endpoint: { transport: 'streamable-http', url: 'https://tickets.example/mcp' },
      authType: 'none',
    })
  ).id;
  for (const email of ['alice@example.com', 'bob@example.com']) {
    const id = (await api.storage.users.create({ email })).id;
    const key = await api.keyIn(id, DEFAULT_ORGANIZATION_ID);
    if (email.startsWith('alice')) alice = { id, key };
    else bob = { id, key };
  }
});
after(() => api.close());

const template = `/v1/admin/mcp-servers/{id}/header-template`;
const credentials = `/v1/mcp-servers/{id}/credentials`;
const path = (pattern: string, id = serverId) => pattern.replace('{id}', id);
const messageOf = (body: unknown) => (body as { error: { message: string } }).error.message;

describe('per-user MCP credentials over the API', () => {
  it('an admin sets the template: deny-listed headers are dropped and named, fixed values refused', async () => {
    const fixed = await api.call('PUT', path(template), api.adminKey, {
      headers: { Authorization: 'Bearer sk-fixed-1' },
    });
    assert.equal(fixed.status, 400);
    assert.match(messageOf(fixed.body), /"Authorization" has no \{placeholder\}/);
    assert.doesNotMatch(fixed.text, /sk-fixed-1/);

    const set = await api.call('PUT', path(template), api.adminKey, {
      headers: { Authorization: 'Bearer {api_key}', 'X-User': '{user_email}', Host: '{api_key}' },
    });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.body, {
      headers: { Authorization: 'Bearer {api_key}', 'X-User': '{user_email}' },
      placeholders: ['api_key'],
      dropped: [{ header: '"Host"', reason: 'denylisted' }],
    });
    const read = await api.call('GET', path(template), api.adminKey);
    assert.deepEqual(read.body, { ...(set.body as object), dropped: [] });
    // Only an admin.
    assert.equal((await api.call('PUT', path(template), alice.key, { headers: {} })).status, 403);
    assert.equal((await api.call('GET', path(template, 'no-such'), api.adminKey)).status, 404);
  });

  it('each user stores their own values, never shown back; CR/LF and unknown placeholders are refused', async () => {
    const empty = await api.call('GET', path(credentials), alice.key);
    assert.deepEqual(empty.body, {
      serverId,
      placeholders: [{ name: 'api_key', set: false }],
      builtIns: ['user_email', 'user_id', 'user_name'],
    });
    const stored = await api.call('PUT', path(credentials), alice.key, {
      values: { api_key: 'alice-secret-9' },
    });
    assert.equal(stored.status, 200, stored.text);
    assert.deepEqual((stored.body as { placeholders: unknown }).placeholders, [
      { name: 'api_key', set: true },
    ]);
    assert.doesNotMatch(stored.text, /alice-secret-9/);

    const injected = await api.call('PUT', path(credentials), bob.key, {
      values: { api_key: 'x\r\nX-Admin: yes' },
    });
    assert.equal(injected.status, 400);
    assert.match(messageOf(injected.body), /value for \{api_key\} contains a line break \(CR\/LF\)/);
    const builtIn = await api.call('PUT', path(credentials), bob.key, {
      values: { user_email: 'alice@example.com' },
    });
    assert.match(messageOf(builtIn.body), /\{user_email\} is filled by toolbus/);
    const unknown = await api.call('PUT', path(credentials), bob.key, { values: { token: 't' } });
    assert.match(messageOf(unknown.body), /\{token\} is not a placeholder of this server's template/);
    assert.equal(
      await api.storage.userSecrets.get({ kind: 'mcpHeaderValues', ownerId: serverId, userId: bob.id }),
      undefined,
    );

    // The egress proxy sends each user's own headers; Bob has none of Alice's.
    assert.deepEqual(
      await storageMcpCredentials(api.storage, serverId, { sandboxId: 's', userId: alice.id }),
      {
        authorization: 'Bearer alice-secret-9',
        'x-user': 'alice@example.com',
      },
    );
    assert.deepEqual(await storageMcpCredentials(api.storage, serverId, { sandboxId: 's', userId: bob.id }), {
      'x-user': 'bob@example.com',
    });

    const removed = await api.call('DELETE', path(credentials), alice.key);
    assert.deepEqual((removed.body as { placeholders: unknown }).placeholders, [
      { name: 'api_key', set: false },
    ]);
    assert.equal(
      await api.storage.userSecrets.get({ kind: 'mcpHeaderValues', ownerId: serverId, userId: alice.id }),
      undefined,
    );
  });

  it('a user without access to the server finds no such server', async () => {
    await setMcpServerAccess(api.storage, serverId, { userIds: [alice.id] });
    const hidden = await api.call('PUT', path(credentials), bob.key, { values: { api_key: 'b' } });
    assert.equal(hidden.status, 404);
    assert.equal((await api.call('GET', path(credentials), alice.key)).status, 200);
    await setMcpServerAccess(api.storage, serverId, {});
  });
});

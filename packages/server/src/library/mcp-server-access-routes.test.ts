// An admin sets who may use an MCP server and whether sandboxes are offered it over the API, and the egress
// catalogue follows: without these routes sandbox access could not be turned on at all (issue 31).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Storage } from '@toolbus/storage';
import { type LocalApiServer, startLocalApiServer } from '../__fixtures__/admin-api-server.ts';
import { storageSandboxMcpServers } from '../egress/storage-mcp-egress.ts';

let api: LocalApiServer;
let storage: Storage;

before(async () => {
  api = await startLocalApiServer();
  storage = api.storage;
});
after(() => api.close());

const call = (method: string, path: string, body?: unknown) => api.call(method, path, body);

describe('an MCP server’s access, set by an admin over the API', () => {
  it('is off until set; once set, the sandbox catalogue offers the server to the listed users only', async () => {
    const wiki = await storage.mcpServers.create({
      name: 'wiki',
      endpoint: { transport: 'streamable-http', url: 'https://wiki.example/mcp' },
      authType: 'none',
    });
    const alice = await storage.users.create({ email: 'alice@example.com' });
    const bob = await storage.users.create({ email: 'bob@example.com' });
    const offered = async (userId: string) =>
      (await storageSandboxMcpServers(storage, { sandboxId: 's', userId })).map((server) => server.name);

    assert.deepEqual((await call('GET', `/v1/admin/mcp-servers/${wiki.id}/access`)).body, {});
    assert.deepEqual(await offered(alice.id), []);

    const set = await call('PUT', `/v1/admin/mcp-servers/${wiki.id}/access`, {
      userIds: [alice.id, alice.id],
      availableToSandboxes: true,
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual(set.body, { userIds: [alice.id], availableToSandboxes: true });
    assert.deepEqual((await call('GET', `/v1/admin/mcp-servers/${wiki.id}/access`)).body, set.body);
    assert.deepEqual(await offered(alice.id), ['wiki']);
    assert.deepEqual(await offered(bob.id), [], 'bob was not given access');

    // Replacing the record: every user, still in sandboxes; then off again.
    await call('PUT', `/v1/admin/mcp-servers/${wiki.id}/access`, { availableToSandboxes: true });
    assert.deepEqual(await offered(bob.id), ['wiki']);
    await call('PUT', `/v1/admin/mcp-servers/${wiki.id}/access`, { availableToSandboxes: false });
    assert.deepEqual(await offered(alice.id), []);
  });

  it('refuses an unknown server, an unknown user and an unknown field, saying which', async () => {
    const server = await storage.mcpServers.create({
      name: 'crm',
      endpoint: { transport: 'streamable-http', url: 'https://crm.example/mcp' },
      authType: 'none',
    });
    const missing = await call('PUT', '/v1/admin/mcp-servers/no-such-server/access', {
      availableToSandboxes: true,
    });
    assert.equal(missing.status, 404);
    const unknownUser = await call('PUT', `/v1/admin/mcp-servers/${server.id}/access`, {
      userIds: ['no-such-user'],
    });
    assert.equal(unknownUser.status, 400);
    assert.match(
      (unknownUser.body.error as { message: string }).message,
      /body\.userIds\.0: no user has the id "no-such-user"/,
    );
    const extra = await call('PUT', `/v1/admin/mcp-servers/${server.id}/access`, { everyone: true });
    assert.equal(extra.status, 400);
    assert.match(JSON.stringify(extra.body), /everyone/);
    assert.deepEqual((await call('GET', `/v1/admin/mcp-servers/${server.id}/access`)).body, {});
  });
});

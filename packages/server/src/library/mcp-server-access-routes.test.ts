// An admin sets who may use an MCP server and whether sandboxes are offered it over the API, and the egress
// catalogue follows: without these routes sandbox access could not be turned on at all (issue 31).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Storage } from '@toolbus/storage';
import { openTestStorage } from '../__fixtures__/test-server.ts';
import { createServer } from '../create-server.ts';
import { storageSandboxMcpServers } from '../egress/storage-mcp-egress.ts';
import { type ListeningServer, listen } from '../listen.ts';

let storage: Storage;
let http: ListeningServer;

before(async () => {
  ({ storage } = await openTestStorage());
  const server = await createServer({
    storage,
    auth: 'local',
    defaultModel: 'openai-compatible:http://127.0.0.1:9/v1#unused',
    logger: { info() {}, warn() {}, error() {} } as never,
  });
  http = await listen(server, { port: 0 });
});
after(async () => {
  await http.close();
  await storage.close();
});

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${http.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

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

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { openStorage, type Storage, writeMcpHeaderTemplate } from '@toolbus/storage';
import { storageEgressMcpServers, storageMcpCredentials } from './storage-mcp-egress.ts';

let storage: Storage;
let alice: string;
let bob: string;

before(async () => {
  storage = await openStorage({
    path: ':memory:',
    secretKey: randomBytes(32).toString('base64'),
    environment: {},
  });
  alice = (await storage.users.create({ email: 'alice@example.com' })).id;
  bob = (await storage.users.create({ email: 'bob@example.com' })).id;
});
after(() => storage.close());

describe('MCP servers in the egress catalogue, from storage', () => {
  it('lists HTTP servers by URL (never stdio ones) and gives each user only their own OAuth token', async () => {
    const oauth = await storage.mcpServers.create({
      name: 'calendar',
      endpoint: { transport: 'streamable-http', url: 'https://calendar.example/mcp' },
      authType: 'oauth',
    });
    await storage.mcpServers.create({
      name: 'local',
      endpoint: { transport: 'stdio', command: 'node', args: ['server.js'] },
      authType: 'none',
    });
    const headers = await storage.mcpServers.create({
      name: 'wiki',
      endpoint: { transport: 'sse', url: 'https://wiki.example/sse' },
      authType: 'headers',
      headers: { 'X-Wiki-Key': 'WIKI-KEY' },
    });
    assert.deepEqual(
      (await storageEgressMcpServers(storage)).map((server) => [server.name, server.url]),
      [
        ['calendar', 'https://calendar.example/mcp'],
        ['wiki', 'https://wiki.example/sse'],
      ],
    );
    await storage.userSecrets.set({
      kind: 'mcpOAuth',
      ownerId: oauth.id,
      userId: alice,
      value: { tokens: { access_token: 'ALICE-ACCESS', token_type: 'bearer' }, tokensSavedAt: Date.now() },
    });
    assert.deepEqual(await storageMcpCredentials(storage, oauth.id, { sandboxId: 's1', userId: alice }), {
      Authorization: 'Bearer ALICE-ACCESS',
    });
    // Bob never connected: nothing (the resolver then refuses), and never Alice's token; no user, nothing.
    assert.equal(await storageMcpCredentials(storage, oauth.id, { sandboxId: 's2', userId: bob }), undefined);
    assert.equal(await storageMcpCredentials(storage, oauth.id, { sandboxId: 's3' }), undefined);
    // An expired token without a refresh token is not sent.
    await storage.userSecrets.set({
      kind: 'mcpOAuth',
      ownerId: oauth.id,
      userId: bob,
      value: { tokens: { access_token: 'BOB-OLD', token_type: 'bearer', expires_in: 60 }, tokensSavedAt: 0 },
    });
    assert.equal(await storageMcpCredentials(storage, oauth.id, { sandboxId: 's2', userId: bob }), undefined);
    // A server that needs no credential is reachable with nothing added (an empty map), not "not connected".
    const open = await storage.mcpServers.create({
      name: 'open-docs',
      endpoint: { transport: 'streamable-http', url: 'https://docs.example/mcp' },
      authType: 'none',
    });
    assert.deepEqual(await storageMcpCredentials(storage, open.id, { sandboxId: 's2', userId: bob }), {});
    // Header auth: the stored headers, for any user of the server.
    assert.deepEqual(await storageMcpCredentials(storage, headers.id, { sandboxId: 's2', userId: bob }), {
      'X-Wiki-Key': 'WIKI-KEY',
    });
  });

  it("fills a server's header template with each user's own values, as the MCP client does", async () => {
    const server = await storage.mcpServers.create({
      name: 'tickets',
      endpoint: { transport: 'streamable-http', url: 'https://tickets.example/mcp' },
      authType: 'headers',
      headers: { 'X-User': 'stored', 'X-Org': 'acme' },
    });
    await writeMcpHeaderTemplate(storage.settings, server.id, {
      Authorization: 'Bearer {api_key}',
      'X-User': '{user_email}',
    });
    await storage.userSecrets.set({
      kind: 'mcpHeaderValues',
      ownerId: server.id,
      userId: alice,
      value: { api_key: 'A-1' },
    });
    assert.deepEqual(await storageMcpCredentials(storage, server.id, { sandboxId: 's1', userId: alice }), {
      authorization: 'Bearer A-1',
      'x-user': 'alice@example.com',
      'x-org': 'acme',
    });
    // Bob stored nothing: his address, never Alice's key; no user: nothing at all (fail closed).
    assert.deepEqual(await storageMcpCredentials(storage, server.id, { sandboxId: 's2', userId: bob }), {
      'x-user': 'bob@example.com',
      'x-org': 'acme',
    });
    assert.equal(await storageMcpCredentials(storage, server.id, { sandboxId: 's3' }), undefined);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readMcpHeaderTemplate, writeMcpHeaderTemplate } from '../mcp-header-template.ts';
import { readMcpServerAccess, setMcpServerAccess } from '../mcp-server-access.ts';
import { MAX_PENDING_MCP_AUTHORIZATIONS_PER_USER, type Storage } from '../storage.ts';
import { isStorageErrorCode as isCode } from './is-storage-error-code.ts';
import type { StorageBackendUnderTest } from './storage-backend-under-test.ts';
import { storagePerTest } from './storage-per-test.ts';

/** MCP servers: their rows and secrets, per-user OAuth state, pending authorizations and tool approvals. */
export function describeMcpServerStoreConformance(backend: StorageBackendUnderTest): void {
  describe('MCP server store', () => {
    const storage = storagePerTest(backend);
    describeServersAndOAuthState(storage);
    describeAuthorizationsAndApprovals(storage);
  });
}

/** Servers (rows and sealed secrets) and per-user OAuth state. */
function describeServersAndOAuthState(storage: () => Storage): void {
  test('create, list, update (secrets replaced), and invalid endpoints refused', async () => {
    const server = await storage().mcpServers.create({
      name: 'remote',
      endpoint: { transport: 'streamable-http', url: 'https://mcp.example.com/mcp' },
      authType: 'headers',
      headers: { 'X-Api-Key': 'one' },
    });
    assert.deepEqual(server.endpoint, {
      transport: 'streamable-http',
      url: 'https://mcp.example.com/mcp',
    });
    assert.equal(server.apiKey, null);
    const updated = await storage().mcpServers.update(server.id, {
      name: 'remote',
      endpoint: { transport: 'stdio', command: 'node', args: ['a.js', '--flag'] },
      authType: 'api-key',
      apiKey: 'two',
    });
    assert.deepEqual(updated.endpoint, { transport: 'stdio', command: 'node', args: ['a.js', '--flag'] });
    assert.deepEqual(updated.headers, {});
    assert.equal(updated.apiKey, 'two');
    assert.equal((await storage().mcpServers.list()).length, 1);
    await assert.rejects(
      storage().mcpServers.create({
        name: 'remote',
        endpoint: { transport: 'sse', url: 'http://a/' },
        authType: 'none',
      }),
      isCode('conflict'),
    );
    await assert.rejects(
      storage().mcpServers.create({
        name: 'f',
        endpoint: { transport: 'sse', url: 'file:///etc/passwd' },
        authType: 'none',
      }),
      isCode('invalid_input'),
    );
    for (const endpoint of [
      { transport: 'sse', url: 'not a url' },
      { transport: 'stdio', command: '', args: [] },
    ] as const) {
      await assert.rejects(
        storage().mcpServers.create({ name: 'h', endpoint, authType: 'none' }),
        isCode('invalid_input'),
      );
    }
    await assert.rejects(
      storage().mcpServers.create({
        name: 'g',
        endpoint: { transport: 'sse', url: 'http://a/' },
        authType: 'magic' as 'none',
      }),
      isCode('invalid_input'),
    );
    await assert.rejects(
      storage().mcpServers.update('missing', { name: 'x', endpoint: updated.endpoint, authType: 'none' }),
      isCode('not_found'),
    );
  });

  test("a server's settings (access, header template) are deleted with it; another server's stay", async () => {
    const create = (name: string) =>
      storage().mcpServers.create({
        name,
        endpoint: { transport: 'sse', url: 'http://a/' },
        authType: 'none',
      });
    const [gone, kept] = [await create('gone'), await create('kept')];
    const template = { Authorization: 'Bearer {api_key}' };
    for (const { id } of [gone, kept]) {
      await setMcpServerAccess(storage(), id, { availableToSandboxes: true });
      await writeMcpHeaderTemplate(storage().settings, id, template);
    }
    assert.equal(await storage().mcpServers.delete(gone.id), true);
    assert.equal(await readMcpServerAccess(storage().settings, gone.id), undefined);
    assert.equal(await readMcpHeaderTemplate(storage().settings, gone.id), undefined);
    assert.deepEqual(await readMcpServerAccess(storage().settings, kept.id), { availableToSandboxes: true });
    assert.deepEqual(await readMcpHeaderTemplate(storage().settings, kept.id), template);
    assert.equal(await storage().mcpServers.delete(gone.id), false);
  });

  test('OAuth state is per user and per server, replaced on save, and deleted with the user', async () => {
    const alice = await storage().users.create({ email: 'alice@example.com' });
    const bob = await storage().users.create({ email: 'bob@example.com' });
    const server = await storage().mcpServers.create({
      name: 'oauth',
      endpoint: { transport: 'streamable-http', url: 'https://mcp.example.com/mcp' },
      authType: 'oauth',
    });
    await storage().userSecrets.set({
      kind: 'mcpOAuth',
      ownerId: server.id,
      userId: alice.id,
      value: { tokens: { access_token: 'a1' }, codeVerifier: 'v' },
    });
    await storage().userSecrets.set({
      kind: 'mcpOAuth',
      ownerId: server.id,
      userId: alice.id,
      value: { tokens: { access_token: 'a2', refresh_token: 'r2' } },
    });
    assert.deepEqual(
      await storage().userSecrets.get({ kind: 'mcpOAuth', ownerId: server.id, userId: alice.id }),
      {
        tokens: { access_token: 'a2', refresh_token: 'r2' },
      },
    );
    assert.equal(
      await storage().userSecrets.get({ kind: 'mcpOAuth', ownerId: server.id, userId: bob.id }),
      undefined,
    );
    await storage().users.delete(alice.id);
    assert.equal(
      await storage().userSecrets.get({ kind: 'mcpOAuth', ownerId: server.id, userId: alice.id }),
      undefined,
    );
    await storage().userSecrets.set({ kind: 'mcpOAuth', ownerId: server.id, userId: bob.id, value: {} });
    assert.equal(
      await storage().userSecrets.delete({ kind: 'mcpOAuth', ownerId: server.id, userId: bob.id }),
      true,
    );
  });
}

/** Pending OAuth authorizations and tool approvals. */
function describeAuthorizationsAndApprovals(storage: () => Storage): void {
  test('a pending OAuth authorization is taken once, never after it expired, and is per user capped', async () => {
    const alice = await storage().users.create({ email: 'alice@example.com' });
    const server = await storage().mcpServers.create({
      name: 'oauth',
      endpoint: { transport: 'streamable-http', url: 'https://mcp.example.com/mcp' },
      authType: 'oauth',
    });
    const pending = (stateHash: string, expiresInMs: number) => ({
      stateHash,
      serverId: server.id,
      userId: alice.id,
      redirectUrl: 'https://toolbus.example/v1/mcp-oauth/callback',
      returnTo: '/admin',
      browserHash: 'b-hash',
      expiresAt: new Date(Date.now() + expiresInMs).toISOString(),
    });
    await storage().mcpServers.savePendingAuthorization(pending('s1', 60_000));
    await storage().mcpServers.savePendingAuthorization(pending('s-old', -1));
    const taken = await storage().mcpServers.takePendingAuthorization('s1');
    assert.equal(taken?.userId, alice.id);
    assert.equal(taken?.serverId, server.id);
    assert.equal(taken?.returnTo, '/admin');
    assert.equal(taken?.browserHash, 'b-hash', 'bound to the browser that started it');
    assert.equal(taken?.redirectUrl, 'https://toolbus.example/v1/mcp-oauth/callback');
    assert.equal(await storage().mcpServers.takePendingAuthorization('s1'), undefined, 'single use');
    assert.equal(await storage().mcpServers.takePendingAuthorization('s-old'), undefined, 'expired');
    assert.equal(await storage().mcpServers.takePendingAuthorization('unknown'), undefined);
    for (let number = 0; number <= MAX_PENDING_MCP_AUTHORIZATIONS_PER_USER; number += 1) {
      await storage().mcpServers.savePendingAuthorization(pending(`cap-${number}`, 60_000));
    }
    assert.equal(await storage().mcpServers.takePendingAuthorization('cap-0'), undefined, 'oldest dropped');
    assert.ok(
      await storage().mcpServers.takePendingAuthorization(`cap-${MAX_PENDING_MCP_AUTHORIZATIONS_PER_USER}`),
    );
    await storage().mcpServers.savePendingAuthorization(pending('gone-with-user', 60_000));
    await storage().users.delete(alice.id);
    assert.equal(await storage().mcpServers.takePendingAuthorization('gone-with-user'), undefined);
  });

  test('tool approvals are recorded, replaced on re-approval, and revoked', async () => {
    const server = await storage().mcpServers.create({
      name: 'approved',
      endpoint: { transport: 'stdio', command: 'node', args: [] },
      authType: 'none',
    });
    await storage().mcpServers.approveTool({
      serverId: server.id,
      toolName: 'echo',
      definitionHash: 'h1',
      approvedBy: 'admin',
    });
    await storage().mcpServers.approveTool({
      serverId: server.id,
      toolName: 'add',
      definitionHash: 'h2',
      approvedBy: 'admin',
    });
    await storage().mcpServers.approveTool({
      serverId: server.id,
      toolName: 'echo',
      definitionHash: 'h3',
      approvedBy: 'root',
    });
    const approvals = await storage().mcpServers.listApprovals(server.id);
    assert.deepEqual(
      approvals.map((approval) => [approval.toolName, approval.definitionHash, approval.approvedBy]),
      [
        ['add', 'h2', 'admin'],
        ['echo', 'h3', 'root'],
      ],
    );
    assert.equal(await storage().mcpServers.revokeApproval({ serverId: server.id, toolName: 'add' }), true);
    assert.equal((await storage().mcpServers.listApprovals(server.id)).length, 1);
  });
}

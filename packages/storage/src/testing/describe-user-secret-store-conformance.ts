import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { readMcpHeaderTemplate, writeMcpHeaderTemplate } from '../mcp-header-template.ts';
import type { Storage } from '../storage.ts';
import type { StorageBackendUnderTest } from './storage-backend-under-test.ts';

/**
 * Each user's secrets of an owner (sealed, per kind, owner and user; MCP OAuth state and connected apps' values are
 * also tested with their stores) and the MCP header template setting, on any backend.
 */
export function describeUserSecretStoreConformance(backend: StorageBackendUnderTest): void {
  describe('user secrets', () => {
    let storage: Storage;
    let serverId: string;
    let ada: string;
    let bob: string;
    beforeEach(async () => {
      storage = await backend.openStorage();
      ada = (await storage.users.create({ email: 'ada@example.com' })).id;
      bob = (await storage.users.create({ email: 'bob@example.com' })).id;
      serverId = (
        await storage.mcpServers.create({
          name: 'crm',
          endpoint: { transport: 'streamable-http', url: 'http://127.0.0.1:9/mcp' },
          authType: 'none',
        })
      ).id;
    });
    afterEach(async () => {
      await storage.close();
    });

    test("each user's values are their own, replaced whole, and deleted with the user or the server", async () => {
      const secrets = storage.userSecrets;
      const of = (userId: string) => ({ kind: 'mcpHeaderValues', ownerId: serverId, userId }) as const;
      await secrets.set({ ...of(ada), value: { api_key: 'ada-1', team: 'red' } });
      await secrets.set({ ...of(bob), value: { api_key: 'bob-1' } });
      assert.deepEqual(await secrets.get(of(ada)), { api_key: 'ada-1', team: 'red' });
      await secrets.set({ ...of(ada), value: { api_key: 'ada-2' } });
      assert.deepEqual(await secrets.get(of(ada)), { api_key: 'ada-2' });
      assert.deepEqual(await secrets.get(of(bob)), { api_key: 'bob-1' });
      assert.equal(await secrets.delete(of(bob)), true);
      assert.equal(await secrets.delete(of(bob)), false);
      assert.equal(await secrets.get(of(bob)), undefined);
      await storage.users.delete(ada);
      assert.equal(await secrets.get(of(ada)), undefined);
      await secrets.set({ ...of(bob), value: { api_key: 'bob-2' } });
      await storage.mcpServers.delete(serverId);
      assert.equal(await secrets.get(of(bob)), undefined);
    });

    test('kinds are apart: the same owner and user hold one value of each kind; an unknown owner is refused', async () => {
      const at = { ownerId: serverId, userId: ada } as const;
      await storage.userSecrets.set({
        kind: 'mcpOAuth',
        ...at,
        value: { tokens: { access_token: 'oauth-1' } },
      });
      await storage.userSecrets.set({ kind: 'mcpHeaderValues', ...at, value: { api_key: 'header-1' } });
      assert.deepEqual(await storage.userSecrets.get({ kind: 'mcpOAuth', ...at }), {
        tokens: { access_token: 'oauth-1' },
      });
      assert.deepEqual(await storage.userSecrets.get({ kind: 'mcpHeaderValues', ...at }), {
        api_key: 'header-1',
      });
      assert.equal(await storage.userSecrets.delete({ kind: 'mcpOAuth', ...at }), true);
      assert.deepEqual(await storage.userSecrets.get({ kind: 'mcpHeaderValues', ...at }), {
        api_key: 'header-1',
      });
      await assert.rejects(
        storage.userSecrets.set({
          kind: 'connectedAppValues',
          ownerId: 987654,
          userId: ada,
          value: { t: 'v' },
        }),
        (error: unknown) => (error as { code?: string }).code === 'invalid_input',
      );
      await assert.rejects(
        storage.userSecrets.set({
          kind: 'mcpHeaderValues',
          ownerId: 'no-such-server',
          userId: ada,
          value: {},
        }),
        (error: unknown) => (error as { code?: string }).code === 'invalid_input',
      );
    });

    test('values are sealed at rest: a copy of the database does not show them', async () => {
      const database = await backend.createDatabase();
      const opened = await database.open();
      const user = (await opened.users.create({ email: 'eve@example.com' })).id;
      const server = await opened.mcpServers.create({
        name: 'wiki',
        endpoint: { transport: 'streamable-http', url: 'http://127.0.0.1:9/mcp' },
        authType: 'none',
      });
      await opened.userSecrets.set({
        kind: 'mcpHeaderValues',
        ownerId: server.id,
        userId: user,
        value: { api_key: 'plain-credential-4c1d' },
      });
      await opened.close();
      assert.doesNotMatch(await database.rawText(), /plain-credential-4c1d/);
      const again = await database.open();
      assert.deepEqual(
        await again.userSecrets.get({ kind: 'mcpHeaderValues', ownerId: server.id, userId: user }),
        {
          api_key: 'plain-credential-4c1d',
        },
      );
      await again.close();
    });

    test('the header template is a setting; an empty one is removed; a malformed one reads as empty', async () => {
      assert.equal(await readMcpHeaderTemplate(storage.settings, serverId), undefined);
      await writeMcpHeaderTemplate(storage.settings, serverId, { Authorization: 'Bearer {api_key}' });
      assert.deepEqual(await readMcpHeaderTemplate(storage.settings, serverId), {
        Authorization: 'Bearer {api_key}',
      });
      await writeMcpHeaderTemplate(storage.settings, serverId, {});
      assert.equal(await readMcpHeaderTemplate(storage.settings, serverId), undefined);
      await storage.settings.set(`mcp-header-template:${serverId}`, { Authorization: 42 });
      assert.deepEqual(await readMcpHeaderTemplate(storage.settings, serverId), {});
    });
  });
}

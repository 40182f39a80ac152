import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { readMcpHeaderTemplate, writeMcpHeaderTemplate } from '../mcp-user-credentials.ts';
import type { Storage } from '../storage.ts';
import type { StorageBackendUnderTest } from './storage-backend-under-test.ts';

/** Per-user values for MCP header templates (sealed, per server and user) and the template setting, on any backend. */
export function describeMcpUserCredentialStoreConformance(backend: StorageBackendUnderTest): void {
  describe('MCP user credentials', () => {
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
      await storage.mcpUserCredentials.set({
        serverId,
        userId: ada,
        values: { api_key: 'ada-1', team: 'red' },
      });
      await storage.mcpUserCredentials.set({ serverId, userId: bob, values: { api_key: 'bob-1' } });
      assert.deepEqual(await storage.mcpUserCredentials.get({ serverId, userId: ada }), {
        api_key: 'ada-1',
        team: 'red',
      });
      await storage.mcpUserCredentials.set({ serverId, userId: ada, values: { api_key: 'ada-2' } });
      assert.deepEqual(await storage.mcpUserCredentials.get({ serverId, userId: ada }), { api_key: 'ada-2' });
      assert.deepEqual(await storage.mcpUserCredentials.get({ serverId, userId: bob }), { api_key: 'bob-1' });
      assert.equal(await storage.mcpUserCredentials.delete({ serverId, userId: bob }), true);
      assert.equal(await storage.mcpUserCredentials.delete({ serverId, userId: bob }), false);
      assert.equal(await storage.mcpUserCredentials.get({ serverId, userId: bob }), undefined);
      await storage.users.delete(ada);
      assert.equal(await storage.mcpUserCredentials.get({ serverId, userId: ada }), undefined);
      await storage.mcpUserCredentials.set({ serverId, userId: bob, values: { api_key: 'bob-2' } });
      await storage.mcpServers.delete(serverId);
      assert.equal(await storage.mcpUserCredentials.get({ serverId, userId: bob }), undefined);
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
      await opened.mcpUserCredentials.set({
        serverId: server.id,
        userId: user,
        values: { api_key: 'plain-credential-4c1d' },
      });
      await opened.close();
      assert.doesNotMatch(await database.rawText(), /plain-credential-4c1d/);
      const again = await database.open();
      assert.deepEqual(await again.mcpUserCredentials.get({ serverId: server.id, userId: user }), {
        api_key: 'plain-credential-4c1d',
      });
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

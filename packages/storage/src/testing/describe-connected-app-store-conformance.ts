import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import type { StorageBackendUnderTest } from './storage-backend-under-test.ts';

/** Connected apps: secrets encrypted at rest, per-user values, id order, deletion with the owner, on any backend. */
export function describeConnectedAppStoreConformance(backend: StorageBackendUnderTest): void {
  describe('connected apps in storage', () => {
    it('keeps headers and values encrypted at rest, per user, in id order, and deletes with their owner', async () => {
      const database = await backend.createDatabase();
      const storage = await database.open();
      const alice = await storage.users.create({ email: 'alice@example.com' });
      const bob = await storage.users.create({ email: 'bob@example.com' });
      const org = await storage.connectedApps.create({
        userId: null,
        name: 'github',
        urlPatterns: ['https://api\\.github\\.com/.*'],
        actions: [{ name: 'read', method: 'GET', pathPattern: '/.*', policy: 'ALWAYS' }],
        headers: { Authorization: 'Bearer {{user.token}}', 'X-Org': '{{org.key}}' },
        organizationValues: { key: 'ORG-SECRET-VALUE-1' },
      });
      const own = await storage.connectedApps.create({
        userId: alice.id,
        name: 'weather',
        urlPatterns: ['https://weather\\.example/.*'],
        headers: { 'X-Api-Key': 'ALICE-LITERAL-KEY-2' },
      });
      await storage.userSecrets.set({
        kind: 'connectedAppValues',
        ownerId: org.id,
        userId: alice.id,
        value: { token: 'ALICE-TOKEN-3' },
      });
      await storage.userSecrets.set({
        kind: 'connectedAppValues',
        ownerId: org.id,
        userId: bob.id,
        value: { token: 'BOB-TOKEN-4' },
      });

      assert.ok(own.id > org.id);
      assert.deepEqual(
        (await storage.connectedApps.list({ userId: alice.id })).map((app) => app.name),
        ['github', 'weather'],
      );
      assert.deepEqual(
        (await storage.connectedApps.list({ userId: bob.id })).map((app) => app.name),
        ['github'],
      );
      const read = await storage.connectedApps.get(org.id);
      assert.deepEqual(read?.headers, { Authorization: 'Bearer {{user.token}}', 'X-Org': '{{org.key}}' });
      assert.deepEqual(read?.organizationValues, { key: 'ORG-SECRET-VALUE-1' });
      assert.deepEqual(
        await storage.userSecrets.get({ kind: 'connectedAppValues', ownerId: org.id, userId: alice.id }),
        {
          token: 'ALICE-TOKEN-3',
        },
      );
      assert.deepEqual(
        await storage.userSecrets.get({ kind: 'connectedAppValues', ownerId: org.id, userId: bob.id }),
        {
          token: 'BOB-TOKEN-4',
        },
      );
      await assert.rejects(
        storage.connectedApps.create({ userId: null, name: 'github', urlPatterns: [], headers: {} }),
        { code: 'conflict' },
      );
      await storage.close();
      const bytes = await database.rawText();
      assert.ok(bytes.includes('alice@example.com'), 'the raw text shows what was stored');
      for (const secret of [
        'ORG-SECRET-VALUE-1',
        'ALICE-LITERAL-KEY-2',
        'ALICE-TOKEN-3',
        'BOB-TOKEN-4',
        '{{user.token}}',
      ]) {
        assert.ok(!bytes.includes(secret), `${secret} is stored in the clear`);
      }
      const reopened = await database
        .open({ secretKey: randomBytes(32).toString('base64') })
        .catch((error: unknown) => error);
      assert.equal((reopened as { code?: string }).code, 'secret_key_mismatch');
    });

    it('removes an owner’s apps and values when the user is deleted', async () => {
      const storage = await backend.openStorage();
      const carol = await storage.users.create({ email: 'carol@example.com' });
      const app = await storage.connectedApps.create({
        userId: carol.id,
        name: 'x',
        urlPatterns: ['.*'],
        headers: { A: 'b' },
      });
      await storage.userSecrets.set({
        kind: 'connectedAppValues',
        ownerId: app.id,
        userId: carol.id,
        value: { t: 'v' },
      });
      await storage.users.delete(carol.id);
      assert.equal(await storage.connectedApps.get(app.id), undefined);
      assert.equal(await storage.connectedApps.delete(app.id), false);
      await storage.close();
    });
  });
}

import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { DEFAULT_ORGANIZATION_ID } from '../organization.ts';
import type { Storage } from '../storage.ts';
import type { StorageBackendUnderTest } from './storage-backend-under-test.ts';

/** Roles, API keys (by hash) and expiring web sessions, on any backend. */
export function describeAccessStoreConformance(backend: StorageBackendUnderTest): void {
  describe('access store', () => {
    let storage: Storage;
    let userId: string;
    beforeEach(async () => {
      storage = await backend.openStorage();
      userId = (await storage.users.create({ email: 'ada@example.com' })).id;
    });
    afterEach(async () => {
      await storage.close();
    });

    describe('roles, API keys and sessions', () => {
      test('users default to the user role; setRole and list', async () => {
        const admin = await storage.users.create({ email: 'root@example.com', role: 'admin' });
        assert.equal(admin.role, 'admin');
        assert.equal((await storage.users.get(userId))?.role, 'user');
        assert.equal((await storage.users.update(userId, { role: 'admin' })).role, 'admin');
        assert.deepEqual(
          (await storage.users.list()).map((user) => user.email),
          ['ada@example.com', 'root@example.com'],
        );
      });

      test('keys are found by hash, listed per user, revoked once, deleted with their user', async () => {
        const key = await storage.access.createApiKey({
          userId,
          name: 'laptop',
          prefix: 'tb_abcd',
          keyHash: 'h1',
          scopes: ['chat'],
        });
        assert.deepEqual(key.scopes, ['chat']);
        assert.equal((await storage.access.getApiKey({ keyHash: 'h1' }))?.id, key.id);
        assert.equal(await storage.access.getApiKey({ keyHash: 'h2' }), undefined);
        await storage.access.touchApiKey(key.id);
        assert.ok((await storage.access.getApiKey(key.id))?.lastUsedAt);
        assert.equal(await storage.access.revokeApiKey(key.id), true);
        assert.equal(await storage.access.revokeApiKey(key.id), false);
        assert.ok((await storage.access.getApiKey({ keyHash: 'h1' }))?.revokedAt);
        assert.equal((await storage.access.listApiKeys(userId)).length, 1);
        await storage.users.delete(userId);
        assert.equal(await storage.access.getApiKey(key.id), undefined);
      });

      test('a key belongs to one organisation (default the default one)', async () => {
        const acme = await storage.organizations.create({ name: 'Acme' });
        const plain = await storage.access.createApiKey({
          userId,
          name: 'plain',
          prefix: 'tb_p',
          keyHash: 'hp',
          scopes: ['chat'],
        });
        const bound = await storage.access.createApiKey({
          userId,
          organizationId: acme.id,
          name: 'acme',
          prefix: 'tb_a',
          keyHash: 'ha',
          scopes: ['chat'],
        });
        assert.equal(plain.organizationId, DEFAULT_ORGANIZATION_ID);
        assert.equal(bound.organizationId, acme.id);
        assert.equal((await storage.access.getApiKey({ keyHash: 'ha' }))?.organizationId, acme.id);
        assert.deepEqual(
          (await storage.access.listApiKeys(userId)).map((key) => key.organizationId),
          [DEFAULT_ORGANIZATION_ID, acme.id],
        );
      });

      test('sessions expire', async () => {
        const future = new Date(Date.now() + 60_000).toISOString();
        await storage.access.createSession({
          tokenHash: 's1',
          userId,
          scopes: ['chat'],
          csrfHash: 'c1',
          expiresAt: future,
        });
        assert.equal((await storage.access.getSession('s1'))?.csrfHash, 'c1');
        assert.equal((await storage.access.getSession('s1'))?.organizationId, null, 'unbound');
        const acme = await storage.organizations.create({ name: 'Acme sessions' });
        await storage.access.createSession({
          tokenHash: 's3',
          userId,
          organizationId: acme.id,
          scopes: ['chat'],
          csrfHash: 'c3',
          expiresAt: future,
        });
        assert.equal((await storage.access.getSession('s3'))?.organizationId, acme.id);
        await storage.access.createSession({
          tokenHash: 's2',
          userId,
          scopes: ['chat'],
          csrfHash: 'c2',
          expiresAt: new Date(Date.now() - 1).toISOString(),
        });
        assert.equal(await storage.access.getSession('s2'), undefined);
        assert.equal(await storage.access.deleteSession('s1'), true);
        assert.equal(await storage.access.getSession('s1'), undefined);
      });

      test('a session remembers its key and scopes; revoking the key deletes its sessions', async () => {
        const future = new Date(Date.now() + 60_000).toISOString();
        const key = await storage.access.createApiKey({
          userId,
          name: 'signs in',
          prefix: 'tb_s',
          keyHash: 'hs',
          scopes: ['chat', 'mcp'],
        });
        const other = await storage.access.createApiKey({
          userId,
          name: 'other',
          prefix: 'tb_o',
          keyHash: 'ho',
          scopes: ['chat'],
        });
        await storage.access.createSession({
          tokenHash: 'k1',
          userId,
          keyId: key.id,
          scopes: ['chat', 'mcp'],
          csrfHash: 'c',
          expiresAt: future,
        });
        await storage.access.createSession({
          tokenHash: 'k2',
          userId,
          keyId: other.id,
          scopes: ['chat'],
          csrfHash: 'c',
          expiresAt: future,
        });
        const session = await storage.access.getSession('k1');
        assert.equal(session?.keyId, key.id);
        assert.deepEqual(session?.scopes, ['chat', 'mcp']);
        assert.equal(await storage.access.revokeApiKey(key.id), true);
        assert.equal(await storage.access.getSession('k1'), undefined, 'ended with its key');
        assert.equal(
          (await storage.access.getSession('k2'))?.keyId,
          other.id,
          "another key's session lives on",
        );
      });
    });
  });
}

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readMcpServerAccess } from './mcp-server-access.ts';
import { openStorage } from './open-storage.ts';
import { setMcpServerAccess } from './set-mcp-server-access.ts';

test('setMcpServerAccess stores existing users once each, and refuses an unknown one storing nothing', async () => {
  const storage = await openStorage({ path: ':memory:', environment: {} });
  try {
    const alice = await storage.users.create({ email: 'alice@example.com' });
    const bob = await storage.users.create({ email: 'bob@example.com' });
    const stored = await setMcpServerAccess(storage, 'srv', {
      userIds: [alice.id, bob.id, alice.id],
      availableToSandboxes: true,
    });
    assert.deepEqual(stored, {
      ok: true,
      access: { userIds: [alice.id, bob.id], availableToSandboxes: true },
    });
    assert.deepEqual(await readMcpServerAccess(storage.settings, 'srv'), {
      userIds: [alice.id, bob.id],
      availableToSandboxes: true,
    });

    const refused = await setMcpServerAccess(storage, 'srv', { userIds: [bob.id, 'nobody'] });
    assert.deepEqual(refused, { ok: false, unknownUser: { index: 1, userId: 'nobody' } });
    assert.deepEqual((await readMcpServerAccess(storage.settings, 'srv'))?.userIds, [alice.id, bob.id]);

    // No list: every user; the record says so by leaving `userIds` out.
    assert.deepEqual(await setMcpServerAccess(storage, 'srv', {}), { ok: true, access: {} });
  } finally {
    await storage.close();
  }
});

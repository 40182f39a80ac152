import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readMcpServerAccess, setMcpServerAccess } from './mcp-server-access.ts';
import { openStorage } from './open-storage.ts';

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

test('a stored access record of the wrong shape reads as nobody, not in sandboxes', async () => {
  const storage = await openStorage({ path: ':memory:', environment: {} });
  try {
    const nobody = { userIds: [], availableToSandboxes: false };
    const stored = [{ userIds: 'everyone' }, { userIds: [1] }, { availableToSandboxes: 'yes' }, 'all', []];
    for (const value of stored) {
      await storage.settings.set('mcp-server-access:srv', value);
      assert.deepEqual(await readMcpServerAccess(storage.settings, 'srv'), nobody, JSON.stringify(value));
    }
    await storage.settings.set('mcp-server-access:srv', { availableToSandboxes: true });
    assert.deepEqual(await readMcpServerAccess(storage.settings, 'srv'), { availableToSandboxes: true });
    assert.equal(await readMcpServerAccess(storage.settings, 'other'), undefined);
  } finally {
    await storage.close();
  }
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { omitUndefined } from '@toolbus/spec';
import { DEFAULT_ORGANIZATION_ID, type Storage } from '@toolbus/storage';
import { openTestStorage } from '../__fixtures__/test-server.ts';
import { storageEgressSessions } from './storage-egress-sessions.ts';

let storage: Storage;
before(async () => {
  ({ storage } = await openTestStorage());
});
after(async () => {
  await storage.close();
});

describe('storageEgressSessions', () => {
  test('a chat is a session of its owner in its organisation only; anything unknown is a no', async () => {
    const alice = await storage.users.create({ email: 'alice@example.com' });
    const bob = await storage.users.create({ email: 'bob@example.com' });
    const chat = await storage.chats.create({ userId: alice.id, title: 'report' });
    const { sessionBelongsTo } = storageEgressSessions(storage);
    assert.ok(sessionBelongsTo !== undefined);
    const sandbox = (userId: string | undefined, organizationId?: string) => ({
      sandboxId: 'pod-1',
      ...omitUndefined({ userId, organizationId }),
    });
    assert.equal(await sessionBelongsTo(chat.id, sandbox(alice.id)), true);
    assert.equal(await sessionBelongsTo(chat.id, sandbox(alice.id, DEFAULT_ORGANIZATION_ID)), true);
    assert.equal(await sessionBelongsTo(chat.id, sandbox(bob.id)), false, "another user's chat");
    assert.equal(
      await sessionBelongsTo(chat.id, sandbox(alice.id, 'org-elsewhere')),
      false,
      'another organisation',
    );
    assert.equal(await sessionBelongsTo(chat.id, sandbox(undefined)), false, 'a sandbox of nobody');
    assert.equal(await sessionBelongsTo('no-such-chat', sandbox(alice.id)), false);
  });
});

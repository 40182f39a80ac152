import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { Storage } from '../storage.ts';
import { isStorageErrorCode as isCode } from './is-storage-error-code.ts';
import type { StorageBackendUnderTest } from './storage-backend-under-test.ts';

/** Research checkpoints: the last one per running turn, saved only while it runs, gone with the turn's chat. */
export function describeResearchCheckpointStoreConformance(backend: StorageBackendUnderTest): void {
  describe('research checkpoint store', () => {
    let storage: Storage;
    let chatId: string;
    beforeEach(async () => {
      storage = await backend.openStorage();
      const userId = (await storage.users.create({ email: 'ada@example.com' })).id;
      chatId = (await storage.chats.create({ userId })).id;
    });
    afterEach(async () => {
      await storage.close();
    });

    const checkpoint = (cycles: number) => ({
      version: 1,
      cycles,
      plan: '1. Gather sources',
      documents: [{ id: 'd1', title: 'Über "quotes" \\ and\nlines', citationNumber: 1, content: 'x\u0000y' }],
    });

    test('save replaces the last checkpoint; get reads it back as saved; delete forgets it', async () => {
      const turn = await storage.chats.startTurn({ chatId, kind: 'research' });
      assert.equal(await storage.researchCheckpoints.get({ chatId, turn: turn.index }), undefined);
      await storage.researchCheckpoints.save({ chatId, turn: turn.index, checkpoint: checkpoint(0) });
      await storage.researchCheckpoints.save({ chatId, turn: turn.index, checkpoint: checkpoint(1) });
      assert.deepEqual(await storage.researchCheckpoints.get({ chatId, turn: turn.index }), checkpoint(1));
      assert.equal(await storage.researchCheckpoints.delete({ chatId, turn: turn.index }), true);
      assert.equal(await storage.researchCheckpoints.get({ chatId, turn: turn.index }), undefined);
      assert.equal(await storage.researchCheckpoints.delete({ chatId, turn: turn.index }), false);
    });

    test('only a running turn saves one: an ended turn is a conflict, a missing one not_found', async () => {
      const turn = await storage.chats.startTurn({ chatId, kind: 'research' });
      await storage.researchCheckpoints.save({ chatId, turn: turn.index, checkpoint: checkpoint(0) });
      await storage.chats.finishTurn({ chatId, turn: turn.index, status: 'completed' });
      await assert.rejects(
        storage.researchCheckpoints.save({ chatId, turn: turn.index, checkpoint: checkpoint(1) }),
        isCode('conflict'),
      );
      assert.deepEqual(await storage.researchCheckpoints.get({ chatId, turn: turn.index }), checkpoint(0));
      await assert.rejects(
        storage.researchCheckpoints.save({ chatId, turn: 7, checkpoint: checkpoint(0) }),
        isCode('not_found'),
      );
      await assert.rejects(
        storage.researchCheckpoints.save({ chatId, turn: turn.index, checkpoint: undefined }),
        isCode('invalid_input'),
      );
    });

    test('deleting the chat deletes its checkpoints', async () => {
      const turn = await storage.chats.startTurn({ chatId, kind: 'research' });
      await storage.researchCheckpoints.save({ chatId, turn: turn.index, checkpoint: checkpoint(2) });
      assert.equal(await storage.chats.delete(chatId), true);
      assert.equal(await storage.researchCheckpoints.get({ chatId, turn: turn.index }), undefined);
    });
  });
}

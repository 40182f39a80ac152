import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { ChatMessage } from '@toolbus/spec';
import type { Storage } from '../storage.ts';
import { hostileTexts } from './hostile-texts.ts';
import { isStorageErrorCode as isCode } from './is-storage-error-code.ts';
import type { StorageBackendUnderTest } from './storage-backend-under-test.ts';

/** Chats, turns (one running per chat, history written with the turn's end) and packet streams, on any backend. */
export function describeChatStoreConformance(backend: StorageBackendUnderTest): void {
  describe('chat store', () => {
    let storage: Storage;
    let userId: string;
    beforeEach(async () => {
      storage = await backend.openStorage();
      userId = (await storage.users.create({ email: 'ada@example.com' })).id;
    });
    afterEach(async () => {
      await storage.close();
    });

    const question: ChatMessage = { role: 'user', content: 'What is the refund policy?' };
    const answerWithTool: ChatMessage[] = [
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'c1', name: 'internal_search', arguments: { queries: ['refund'] } }],
      },
      { role: 'tool', toolCallId: 'c1', toolName: 'internal_search', content: '[1] Refunds within 30 days.' },
      { role: 'assistant', content: 'Refunds are accepted within 30 days [1].' },
    ];

    describe('chats', () => {
      test('create, list newest first, rename, delete with everything in it', async () => {
        const first = await storage.chats.create({ userId });
        assert.equal(first.title, 'New chat');
        const second = await storage.chats.create({ userId, title: '  Refunds  ' });
        assert.equal(second.title, 'Refunds');
        // A finished turn's history makes its chat the most recently updated.
        const asked = await storage.chats.startTurn({ chatId: first.id });
        await storage.chats.finishTurn({
          chatId: first.id,
          turn: asked.index,
          status: 'completed',
          messages: [question],
        });
        assert.deepEqual(
          (await storage.chats.listForUser(userId)).map((chat) => chat.id),
          [first.id, second.id],
        );
        assert.equal((await storage.chats.rename(second.id, 'Policies')).title, 'Policies');
        const turn = await storage.chats.startTurn({ chatId: second.id });
        await storage.chats.appendPackets({ chatId: second.id, turn: turn.index, packets: [{ a: 1 }] });
        assert.equal(await storage.chats.delete(second.id), true);
        assert.equal(await storage.chats.get(second.id), undefined);
        assert.deepEqual(await storage.chats.listPackets({ chatId: second.id, turn: 0 }), []);
        assert.equal(await storage.chats.delete(second.id), false);
      });

      test('titles are 1 to 200 characters; unknown chats are not_found', async () => {
        await assert.rejects(storage.chats.create({ userId, title: '   ' }), isCode('invalid_input'));
        await assert.rejects(
          storage.chats.create({ userId, title: 'x'.repeat(201) }),
          isCode('invalid_input'),
        );
        await assert.rejects(storage.chats.rename('missing', 'x'), isCode('not_found'));
        await assert.rejects(storage.chats.startTurn({ chatId: 'missing' }), isCode('not_found'));
      });

      test('a chat of an unknown user is refused by the schema', async () => {
        await assert.rejects(storage.chats.create({ userId: 'nobody' }), isCode('invalid_input'));
      });

      test('deleting the user deletes their chats', async () => {
        const chat = await storage.chats.create({ userId });
        await storage.users.delete(userId);
        assert.equal(await storage.chats.get(chat.id), undefined);
      });
    });

    describe('turns', () => {
      test('a finished turn writes its status and its history together, in order', async () => {
        const chat = await storage.chats.create({ userId });
        const turn = await storage.chats.startTurn({ chatId: chat.id });
        assert.deepEqual([turn.index, turn.status, turn.kind, turn.endedAt], [0, 'running', 'chat', null]);
        // What starting and finishing return is the record as stored, field for field.
        assert.deepEqual(turn, await storage.chats.getTurn({ chatId: chat.id, turn: 0 }));
        assert.deepEqual(await storage.chats.listMessages(chat.id), []);
        const finished = await storage.chats.finishTurn({
          chatId: chat.id,
          turn: 0,
          status: 'completed',
          messages: [question, ...answerWithTool],
        });
        assert.equal(finished.status, 'completed');
        assert.notEqual(finished.endedAt, null);
        assert.deepEqual(finished, await storage.chats.getTurn({ chatId: chat.id, turn: 0 }));
        const history = await storage.chats.listMessages(chat.id);
        assert.deepEqual(
          history.map((stored) => [stored.position, stored.turn, stored.message.role]),
          [
            [0, 0, 'user'],
            [1, 0, 'assistant'],
            [2, 0, 'tool'],
            [3, 0, 'assistant'],
          ],
        );
        assert.deepEqual(history[1]?.message, answerWithTool[0]);
        const next = await storage.chats.startTurn({ chatId: chat.id, kind: 'research' });
        assert.deepEqual([next.index, next.kind], [1, 'research']);
      });

      test('hostile message texts come back exactly, after the history before them, in order', async () => {
        const messages: ChatMessage[] = hostileTexts.map((content) => ({ role: 'assistant', content }));
        const chat = await storage.chats.create({ userId });
        for (const history of [[question], messages]) {
          const turn = await storage.chats.startTurn({ chatId: chat.id });
          await storage.chats.finishTurn({
            chatId: chat.id,
            turn: turn.index,
            status: 'completed',
            messages: history,
          });
        }
        const stored = await storage.chats.listMessages(chat.id);
        assert.deepEqual(
          stored.map((each) => [each.position, each.turn, each.message]),
          [[0, 0, question], ...messages.map((message, index) => [index + 1, 1, message])],
        );
      });

      test('only one running turn per chat; a turn ends once', async () => {
        const chat = await storage.chats.create({ userId });
        await storage.chats.startTurn({ chatId: chat.id });
        await assert.rejects(storage.chats.startTurn({ chatId: chat.id }), isCode('conflict'));
        await storage.chats.finishTurn({
          chatId: chat.id,
          turn: 0,
          status: 'stopped',
          reason: 'user_cancelled',
        });
        await assert.rejects(
          storage.chats.finishTurn({ chatId: chat.id, turn: 0, status: 'completed' }),
          isCode('conflict'),
        );
        assert.equal(
          (await storage.chats.getTurn({ chatId: chat.id, turn: 0 }))?.endReason,
          'user_cancelled',
        );
        await assert.rejects(
          storage.chats.finishTurn({ chatId: chat.id, turn: 9, status: 'completed' }),
          isCode('not_found'),
        );
      });

      test('a process killed mid-turn leaves the history as before and its turn running for the next to close', async () => {
        const database = await backend.createDatabase();
        const first = await database.open();
        const user = await first.users.create({ email: 'b@example.com' });
        const chat = await first.chats.create({ userId: user.id });
        await first.chats.startTurn({ chatId: chat.id });
        await first.chats.appendPackets({ chatId: chat.id, turn: 0, packets: [{ type: 'message-start' }] });
        await first.close(); // the process dies: finishTurn never ran
        const second = await database.open();
        assert.deepEqual(await second.chats.listMessages(chat.id), []);
        const [left] = await second.chats.listRunningTurns();
        assert.deepEqual([left?.chatId, left?.index], [chat.id, 0]);
        const reason = 'the server restarted during the turn';
        const closed = await second.chats.finishTurn({
          chatId: chat.id,
          turn: 0,
          status: 'interrupted',
          reason,
        });
        assert.deepEqual([closed.status, closed.endReason], ['interrupted', reason]);
        assert.deepEqual(await second.chats.listRunningTurns(), []);
        assert.equal((await second.chats.listPackets({ chatId: chat.id, turn: 0 })).length, 1);
        await second.close();
      });

      test('a turn keeps the messages it started with; running turns are listed for closing one by one', async () => {
        const chat = await storage.chats.create({ userId });
        const started = await storage.chats.startTurn({ chatId: chat.id, input: [question] });
        assert.deepEqual(started.input, [question]);
        assert.deepEqual(started, await storage.chats.getTurn({ chatId: chat.id, turn: 0 }));
        assert.deepEqual(await storage.chats.listMessages(chat.id), []);
        const running = await storage.chats.listRunningTurns();
        assert.deepEqual(
          running.map((turn) => [turn.chatId, turn.index, turn.input]),
          [[chat.id, 0, [question]]],
        );
        await storage.chats.finishTurn({
          chatId: chat.id,
          turn: 0,
          status: 'interrupted',
          reason: 'restarted',
          messages: [...started.input, { role: 'assistant', content: '(interrupted)' }],
        });
        assert.deepEqual(await storage.chats.listRunningTurns(), []);
        assert.deepEqual(
          (await storage.chats.listMessages(chat.id)).map((stored) => [stored.turn, stored.message.role]),
          [
            [0, 'user'],
            [0, 'assistant'],
          ],
        );
        const plain = await storage.chats.startTurn({ chatId: chat.id });
        assert.deepEqual(plain.input, []);
      });
    });

    describe('a turn ended twice', () => {
      test("a closer's end tried again after it committed gets the turn back; another closer's gets conflict", async () => {
        const chat = await storage.chats.create({ userId });
        await storage.chats.startTurn({ chatId: chat.id, input: [question] });
        const end = {
          chatId: chat.id,
          turn: 0,
          status: 'interrupted' as const,
          reason: 'one',
          messages: [question, { role: 'assistant' as const, content: 'one' }],
          packets: [{ stop: 'one' }],
          endToken: 'closer-one',
        };
        const ended = await storage.chats.finishTurn(end);
        // The same closer again (its first reply lost): the turn as its first try ended it, nothing stored twice.
        assert.deepEqual(await storage.chats.finishTurn(end), ended);
        assert.deepEqual(await storage.chats.finishTurn({ ...end, reason: 'again', packets: [] }), ended);
        const { endToken: _, ...untokened } = end;
        for (const other of [{ ...end, endToken: 'closer-two' }, untokened])
          await assert.rejects(storage.chats.finishTurn(other), isCode('conflict'));
        assert.deepEqual(await storage.chats.getTurn({ chatId: chat.id, turn: 0 }), ended);
        assert.deepEqual(await storage.chats.listPackets({ chatId: chat.id, turn: 0 }), [
          { sequence: 1, packet: { stop: 'one' } },
        ]);
        assert.deepEqual(
          (await storage.chats.listMessages(chat.id)).map((stored) => stored.message.content),
          [question.content, 'one'],
        );
        // A token is no key to another turn: a running turn's end with it is an end like any.
        await storage.chats.startTurn({ chatId: chat.id });
        assert.equal((await storage.chats.finishTurn({ ...end, turn: 1 })).status, 'interrupted');
        await assert.rejects(storage.chats.finishTurn({ ...end, turn: 9 }), isCode('not_found'));
      });
    });

    describe('packets', () => {
      test("a turn's closing packets are stored with its end: of two closers at once, only the one that ends it stores any", async () => {
        const database = await backend.createDatabase();
        // Two connections, as two replicas (or a sweep and a restarted process) close a dead runner's turn.
        const [one, two] = [await database.open(), await database.open()];
        try {
          const user = await one.users.create({ email: 'c@example.com' });
          const chat = await one.chats.create({ userId: user.id });
          await one.chats.startTurn({ chatId: chat.id });
          await one.chats.appendPackets({ chatId: chat.id, turn: 0, packets: [{ delta: 'Refunds' }] });
          const close = (closer: Storage, by: string) =>
            closer.chats.finishTurn({
              chatId: chat.id,
              turn: 0,
              status: 'interrupted',
              reason: by,
              messages: [{ role: 'assistant', content: by }],
              packets: [{ error: by }, { stop: by }],
            });
          const results = await Promise.allSettled([close(one, 'one'), close(two, 'two')]);
          const refused = results.filter((result) => result.status === 'rejected');
          assert.equal(refused.length, 1, 'one closer ends the turn');
          assert.ok(isCode('conflict')((refused[0] as PromiseRejectedResult).reason));
          const by = (await two.chats.getTurn({ chatId: chat.id, turn: 0 }))?.endReason;
          assert.deepEqual(await two.chats.listPackets({ chatId: chat.id, turn: 0 }), [
            { sequence: 1, packet: { delta: 'Refunds' } },
            { sequence: 2, packet: { error: by } },
            { sequence: 3, packet: { stop: by } },
          ]);
          assert.deepEqual(
            (await one.chats.listMessages(chat.id)).map((stored) => stored.message.content),
            [by],
          );
          // A packet written after the end (a runner that has not noticed yet) follows the closing ones.
          assert.equal(
            await two.chats.appendPackets({ chatId: chat.id, turn: 0, packets: [{ late: 1 }] }),
            4,
          );
        } finally {
          await one.close();
          await two.close();
        }
      });

      test('sequences start at 1 without gaps across appends; replay after any point, bounded', async () => {
        const chat = await storage.chats.create({ userId });
        await storage.chats.startTurn({ chatId: chat.id });
        assert.equal(
          await storage.chats.appendPackets({ chatId: chat.id, turn: 0, packets: [{ n: 1 }, { n: 2 }] }),
          2,
        );
        assert.equal(await storage.chats.appendPackets({ chatId: chat.id, turn: 0, packets: [{ n: 3 }] }), 3);
        const all = await storage.chats.listPackets({ chatId: chat.id, turn: 0 });
        assert.deepEqual(all, [
          { sequence: 1, packet: { n: 1 } },
          { sequence: 2, packet: { n: 2 } },
          { sequence: 3, packet: { n: 3 } },
        ]);
        assert.deepEqual(
          (await storage.chats.listPackets({ chatId: chat.id, turn: 0, after: 1, limit: 1 })).map(
            (p) => p.sequence,
          ),
          [2],
        );
        assert.deepEqual(await storage.chats.listPackets({ chatId: chat.id, turn: 0, after: 3 }), []);
      });

      test('batches for several turns in one call: each continues its own sequence, a missing turn fails alone', async () => {
        const first = await storage.chats.create({ userId });
        const second = await storage.chats.create({ userId });
        await storage.chats.startTurn({ chatId: first.id });
        await storage.chats.startTurn({ chatId: second.id });
        assert.equal(
          await storage.chats.appendPackets({ chatId: first.id, turn: 0, packets: [{ n: 1 }] }),
          1,
        );
        const results = await storage.chats.appendPacketBatches([
          { chatId: first.id, turn: 0, packets: [{ n: 2 }, { n: 3 }] },
          { chatId: second.id, turn: 0, packets: [{ m: 1 }] },
          { chatId: second.id, turn: 7, packets: [{ lost: true }] },
          { chatId: first.id, turn: 0, packets: [{ n: 4 }] },
          { chatId: second.id, turn: 0, packets: [] },
        ]);
        assert.equal(results.length, 5);
        assert.deepEqual(results[0], { ok: true, last: 3 });
        assert.deepEqual(results[1], { ok: true, last: 1 });
        const missing = results[2];
        assert.ok(missing && !missing.ok && isCode('not_found')(missing.error), JSON.stringify(missing));
        assert.deepEqual(results[3], { ok: true, last: 4 });
        assert.deepEqual(results[4], { ok: true, last: 1 });
        assert.deepEqual(await storage.chats.listPackets({ chatId: first.id, turn: 0 }), [
          { sequence: 1, packet: { n: 1 } },
          { sequence: 2, packet: { n: 2 } },
          { sequence: 3, packet: { n: 3 } },
          { sequence: 4, packet: { n: 4 } },
        ]);
        assert.deepEqual(await storage.chats.listPackets({ chatId: second.id, turn: 0 }), [
          { sequence: 1, packet: { m: 1 } },
        ]);
        assert.deepEqual(await storage.chats.listPackets({ chatId: second.id, turn: 7 }), []);
        assert.equal(
          await storage.chats.appendPackets({ chatId: second.id, turn: 0, packets: [{ m: 2 }] }),
          2,
        );
        assert.deepEqual(await storage.chats.appendPacketBatches([]), []);
      });

      test('bad cursors and unknown turns are refused', async () => {
        const chat = await storage.chats.create({ userId });
        await assert.rejects(
          storage.chats.appendPackets({ chatId: chat.id, turn: 0, packets: [{}] }),
          isCode('not_found'),
        );
        await assert.rejects(
          storage.chats.listPackets({ chatId: chat.id, turn: 0, after: -1 }),
          isCode('invalid_input'),
        );
        await assert.rejects(
          storage.chats.listPackets({ chatId: chat.id, turn: 0, after: 1.5 }),
          isCode('invalid_input'),
        );
        await assert.rejects(
          storage.chats.listPackets({ chatId: chat.id, turn: 0, limit: 0 }),
          isCode('invalid_input'),
        );
      });
    });
  });
}

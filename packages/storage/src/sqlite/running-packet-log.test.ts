import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import { describe, test } from 'node:test';
import { temporaryDirectories } from '../__fixtures__/temporary-directories.ts';
import { openStorage } from '../open-storage.ts';
import type { Storage } from '../storage.ts';
import { StorageError } from '../storage-error.ts';
import { isStorageErrorCode as isCode } from '../testing/is-storage-error-code.ts';

// A running turn's packets live in chat_packet_log and are copied to chat_packets when the turn ends (the log's
// head is swept later). These tests read both tables directly, because what they prove is where the rows are,
// and that nothing is lost or doubled on the way.
const key = randomBytes(32).toString('base64');
const { databasePath } = temporaryDirectories('toolbus-packet-log-');
const open = (path: string) => openStorage({ path, secretKey: key, environment: {} });
function rowCounts(path: string): { log: number; table: number } {
  const database = new DatabaseSync(path, { readOnly: true });
  try {
    const count = (table: string) =>
      (database.prepare(`SELECT COUNT(*) AS count FROM ${table}`).get() as { count: number }).count;
    return { log: count('chat_packet_log'), table: count('chat_packets') };
  } finally {
    database.close();
  }
}
const delta = (content: string) => ({ obj: { type: 'message-delta', content } });
async function texts(storage: Storage, chatId: string, turn: number, after = 0, limit = 1000) {
  const packets = await storage.chats.listPackets({ chatId, turn, after, limit });
  return packets.map(
    ({ sequence, packet }) => `${sequence}:${(packet as ReturnType<typeof delta>).obj.content}`,
  );
}

describe('packets of running turns (the append-only log)', () => {
  test('a running turn reads back from the log, pages included; its end moves every row to chat_packets', async () => {
    const path = databasePath();
    const storage = await open(path);
    const user = await storage.users.create({ email: 'a@example.com' });
    const chat = await storage.chats.create({ userId: user.id });
    const turn = await storage.chats.startTurn({ chatId: chat.id });
    await storage.chats.appendPackets({
      chatId: chat.id,
      turn: turn.index,
      packets: [delta('a'), delta('b')],
    });
    const [other] = await storage.chats.appendPacketBatches([
      { chatId: chat.id, turn: turn.index, packets: [delta('c')] },
    ]);
    assert.deepEqual(other, { ok: true, last: 3 });
    assert.deepEqual(rowCounts(path), { log: 3, table: 0 });
    assert.deepEqual(await texts(storage, chat.id, turn.index), ['1:a', '2:b', '3:c']);
    assert.deepEqual(await texts(storage, chat.id, turn.index, 1, 1), ['2:b']);
    assert.deepEqual(await texts(storage, chat.id, turn.index, 3), []);

    await storage.chats.finishTurn({ chatId: chat.id, turn: turn.index, status: 'completed' });
    assert.equal(rowCounts(path).table, 3);
    assert.deepEqual(await texts(storage, chat.id, turn.index), ['1:a', '2:b', '3:c']);
    // A packet written after the end (a closing one) goes straight to the table, after the others.
    await storage.chats.appendPackets({ chatId: chat.id, turn: turn.index, packets: [delta('d')] });
    assert.deepEqual(await texts(storage, chat.id, turn.index, 2), ['3:c', '4:d']);
    await storage.close();
  });

  test('a process that died mid-turn leaves its rows in the log: the next one reads them and closes the turn', async () => {
    const path = databasePath();
    const first = await open(path);
    const user = await first.users.create({ email: 'b@example.com' });
    const chat = await first.chats.create({ userId: user.id });
    const turn = await first.chats.startTurn({ chatId: chat.id });
    const quiet = await first.chats.create({ userId: user.id });
    const quietTurn = await first.chats.startTurn({ chatId: quiet.id });
    for (const piece of ['x', 'y', 'z'])
      await first.chats.appendPacketBatches([
        { chatId: chat.id, turn: turn.index, packets: [delta(piece)] },
        { chatId: quiet.id, turn: quietTurn.index, packets: [delta(piece.toUpperCase())] },
      ]);
    await first.close();

    const second = await open(path);
    // Another store knows nothing of those rows: it finds them in the log, for either turn.
    assert.deepEqual(await texts(second, chat.id, turn.index), ['1:x', '2:y', '3:z']);
    assert.deepEqual(await texts(second, quiet.id, quietTurn.index, 1), ['2:Y', '3:Z']);
    // It can carry a found turn on with the next sequence.
    assert.equal(
      await second.chats.appendPackets({ chatId: chat.id, turn: turn.index, packets: [delta('!')] }),
      4,
    );
    for (const [chatId, index] of [
      [chat.id, turn.index],
      [quiet.id, quietTurn.index],
    ] as const) {
      await second.chats.finishTurn({
        chatId,
        turn: index,
        status: 'interrupted',
        reason: 'its process stopped',
      });
    }
    assert.equal(rowCounts(path).table, 7);
    assert.deepEqual(await texts(second, chat.id, turn.index), ['1:x', '2:y', '3:z', '4:!']);
    assert.deepEqual(await texts(second, quiet.id, quietTurn.index), ['1:X', '2:Y', '3:Z']);
    await second.close();
  });

  test('a turn recorded by one process and run by another (an API and a worker replica) reads current in both', async () => {
    const path = databasePath();
    const api = await open(path);
    const worker = await open(path);
    const user = await api.users.create({ email: 'g@example.com' });
    const chat = await api.chats.create({ userId: user.id });
    const turn = await api.chats.startTurn({ chatId: chat.id });
    assert.deepEqual(await texts(api, chat.id, turn.index), []);
    await worker.chats.appendPackets({ chatId: chat.id, turn: turn.index, packets: [delta('w1')] });
    assert.deepEqual(await texts(api, chat.id, turn.index), ['1:w1']);
    await worker.chats.appendPacketBatches([{ chatId: chat.id, turn: turn.index, packets: [delta('w2')] }]);
    assert.deepEqual(await texts(api, chat.id, turn.index, 1), ['2:w2']);
    await worker.chats.finishTurn({ chatId: chat.id, turn: turn.index, status: 'completed' });
    assert.deepEqual(await texts(api, chat.id, turn.index), ['1:w1', '2:w2']);
    await api.close();
    await worker.close();
  });

  test("a turn started here that another process wrote to, among this process's own rows, continues its sequence", async () => {
    // This process's rows fill most ids since it last looked at the log; one row in between is another's, and
    // taking the turn over must find it (taking every row since for this process's own would write sequence 1 twice).
    const path = databasePath();
    const here = await open(path);
    const other = await open(path);
    const user = await here.users.create({ email: 'h@example.com' });
    const [mine, shared] = [
      await here.chats.create({ userId: user.id }),
      await here.chats.create({ userId: user.id }),
    ];
    const mineTurn = await here.chats.startTurn({ chatId: mine.id });
    const sharedTurn = await here.chats.startTurn({ chatId: shared.id });
    await here.chats.appendPackets({ chatId: mine.id, turn: mineTurn.index, packets: [delta('m1')] });
    await other.chats.appendPackets({ chatId: shared.id, turn: sharedTurn.index, packets: [delta('o1')] });
    await here.chats.appendPackets({
      chatId: mine.id,
      turn: mineTurn.index,
      packets: [delta('m2'), delta('m3')],
    });
    const last = await here.chats.appendPackets({
      chatId: shared.id,
      turn: sharedTurn.index,
      packets: [delta('h2')],
    });
    assert.equal(last, 2);
    assert.deepEqual(await texts(here, shared.id, sharedTurn.index), ['1:o1', '2:h2']);
    // With no other writer since, a turn's first append here needs nothing from the log and is still right.
    const third = await here.chats.create({ userId: user.id });
    const thirdTurn = await here.chats.startTurn({ chatId: third.id });
    assert.equal(
      await here.chats.appendPackets({ chatId: third.id, turn: thirdTurn.index, packets: [delta('t1')] }),
      1,
    );
    await here.chats.finishTurn({ chatId: shared.id, turn: sharedTurn.index, status: 'completed' });
    assert.deepEqual(await texts(other, shared.id, sharedTurn.index), ['1:o1', '2:h2']);
    assert.deepEqual(await texts(here, mine.id, mineTurn.index), ['1:m1', '2:m2', '3:m3']);
    await here.close();
    await other.close();
  });

  test('a turn nobody read since the restart is still moved whole when it is closed', async () => {
    const path = databasePath();
    const first = await open(path);
    const user = await first.users.create({ email: 'f@example.com' });
    const chat = await first.chats.create({ userId: user.id });
    const turn = await first.chats.startTurn({ chatId: chat.id });
    await first.chats.appendPackets({ chatId: chat.id, turn: turn.index, packets: [delta('p'), delta('q')] });
    await first.close();
    const second = await open(path);
    await second.chats.finishTurn({
      chatId: chat.id,
      turn: turn.index,
      status: 'interrupted',
      reason: 'restart',
    });
    assert.deepEqual(await texts(second, chat.id, turn.index), ['1:p', '2:q']);
    await second.close();
  });

  test('a batch write that fails as a whole leaves no rows and no gap in the sequences', async () => {
    const path = databasePath();
    const storage = await open(path);
    const user = await storage.users.create({ email: 'c@example.com' });
    const chat = await storage.chats.create({ userId: user.id });
    const turn = await storage.chats.startTurn({ chatId: chat.id });
    await storage.chats.appendPackets({ chatId: chat.id, turn: turn.index, packets: [delta('a')] });
    // A BigInt cannot be JSON: the second batch throws after the first one's row was inserted.
    await assert.rejects(
      storage.chats.appendPacketBatches([
        { chatId: chat.id, turn: turn.index, packets: [delta('lost')] },
        { chatId: chat.id, turn: turn.index, packets: [{ obj: { type: 'message-delta', content: 1n } }] },
      ]),
      TypeError,
    );
    assert.deepEqual(rowCounts(path), { log: 1, table: 0 });
    assert.equal(
      await storage.chats.appendPackets({ chatId: chat.id, turn: turn.index, packets: [delta('b')] }),
      2,
    );
    assert.deepEqual(await texts(storage, chat.id, turn.index), ['1:a', '2:b']);
    await storage.close();
  });

  test('an end refused by the schema rolls the move back: the turn reads, appends and ends as before', async () => {
    const path = databasePath();
    const storage = await open(path);
    const user = await storage.users.create({ email: 'r@example.com' });
    const chat = await storage.chats.create({ userId: user.id });
    const turn = await storage.chats.startTurn({ chatId: chat.id });
    const at = { chatId: chat.id, turn: turn.index };
    await storage.chats.appendPackets({ ...at, packets: [delta('a'), delta('b')] });
    // The turn's rows are moved to chat_packets before its status is written; a status the CHECK refuses undoes both.
    const status = 'bogus' as 'completed';
    await assert.rejects(storage.chats.finishTurn({ ...at, status }), isCode('invalid_input'));
    assert.deepEqual(rowCounts(path), { log: 2, table: 0 });
    assert.deepEqual(await texts(storage, chat.id, turn.index), ['1:a', '2:b']);
    assert.equal(await storage.chats.appendPackets({ ...at, packets: [delta('c')] }), 3);
    await storage.chats.finishTurn({ ...at, status: 'completed' });
    assert.deepEqual(rowCounts(path).table, 3);
    assert.deepEqual(await texts(storage, chat.id, turn.index), ['1:a', '2:b', '3:c']);
    await storage.close();
  });

  test('deleting a chat mid-turn removes its logged rows; its turn then refuses packets', async () => {
    const path = databasePath();
    const storage = await open(path);
    const user = await storage.users.create({ email: 'd@example.com' });
    const chat = await storage.chats.create({ userId: user.id });
    const kept = await storage.chats.create({ userId: user.id });
    const turn = await storage.chats.startTurn({ chatId: chat.id });
    const keptTurn = await storage.chats.startTurn({ chatId: kept.id });
    await storage.chats.appendPackets({ chatId: chat.id, turn: turn.index, packets: [delta('gone')] });
    await storage.chats.appendPackets({ chatId: kept.id, turn: keptTurn.index, packets: [delta('kept')] });
    assert.equal(await storage.chats.delete(chat.id), true);
    assert.deepEqual(rowCounts(path), { log: 1, table: 0 });
    const [refused] = await storage.chats.appendPacketBatches([
      { chatId: chat.id, turn: turn.index, packets: [delta('late')] },
    ]);
    assert.equal(refused?.ok, false);
    assert.ok(
      refused && !refused.ok && StorageError.isInstance(refused.error) && refused.error.code === 'not_found',
    );
    assert.deepEqual(await texts(storage, kept.id, keptTurn.index), ['1:kept']);
    await storage.close();
  });

  test("the head of the log is swept of ended turns' rows, never of a turn still running in another process", async () => {
    const path = databasePath();
    const storage = await open(path);
    const other = await open(path);
    const user = await storage.users.create({ email: 'e@example.com' });
    const elsewhere = await other.chats.create({ userId: user.id });
    const elsewhereTurn = await other.chats.startTurn({ chatId: elsewhere.id });
    await other.chats.appendPackets({
      chatId: elsewhere.id,
      turn: elsewhereTurn.index,
      packets: [delta('1')],
    });
    // Read here first: a turn this store only found in the log must not hold the head back.
    assert.deepEqual(await texts(storage, elsewhere.id, elsewhereTurn.index), ['1:1']);
    for (let round = 0; round < 25; round += 1) {
      const chat = await storage.chats.create({ userId: user.id });
      const turn = await storage.chats.startTurn({ chatId: chat.id });
      const packets = Array.from({ length: 100 }, (_unused, index) => delta(String(index)));
      await storage.chats.appendPackets({ chatId: chat.id, turn: turn.index, packets });
      await storage.chats.finishTurn({ chatId: chat.id, turn: turn.index, status: 'completed' });
      assert.equal(
        (await texts(storage, chat.id, turn.index)).length,
        100,
        'each packet once, after the end',
      );
    }
    await other.chats.appendPackets({
      chatId: elsewhere.id,
      turn: elsewhereTurn.index,
      packets: [delta('2')],
    });
    const { log, table } = rowCounts(path);
    assert.equal(table, 2500);
    // Swept once 2,000 rows had gathered: the last five turns' rows and the running turn's two are left.
    assert.equal(log, 502, `the log's head was swept (${log} rows left)`);
    assert.deepEqual(await texts(other, elsewhere.id, elsewhereTurn.index), ['1:1', '2:2']);
    assert.deepEqual(await texts(storage, elsewhere.id, elsewhereTurn.index), ['1:1', '2:2']);
    await storage.close();
    await other.close();
  });

  test('one batch write for many turns (past one multi-row insert): each turn reads its own rows in order', async () => {
    const path = databasePath();
    const storage = await open(path);
    const user = await storage.users.create({ email: 'many@example.com' });
    const turns: { chatId: string; turn: number }[] = [];
    for (let index = 0; index < 70; index += 1) {
      const chat = await storage.chats.create({ userId: user.id });
      turns.push({ chatId: chat.id, turn: (await storage.chats.startTurn({ chatId: chat.id })).index });
    }
    // 70 turns × 3 packets: 210 rows, more than one insert statement holds; a missing turn among them fails alone.
    for (const round of ['a', 'b']) {
      const results = await storage.chats.appendPacketBatches([
        ...turns.map((turn, index) => ({
          ...turn,
          packets: [delta(`${round}${index}.1`), delta(`${round}${index}.2`), delta(`${round}${index}.3`)],
        })),
        { chatId: 'no-such-chat', turn: 0, packets: [delta('lost')] },
      ]);
      assert.deepEqual(
        results.slice(0, -1),
        turns.map(() => ({ ok: true, last: round === 'a' ? 3 : 6 })),
      );
      assert.equal((results.at(-1) as { ok: false; error: StorageError }).error.code, 'not_found');
    }
    for (const [index, turn] of turns.entries()) {
      assert.deepEqual(
        await texts(storage, turn.chatId, turn.turn),
        ['a', 'b'].flatMap((round, r) => [1, 2, 3].map((n) => `${r * 3 + n}:${round}${index}.${n}`)),
      );
    }
    assert.deepEqual(rowCounts(path), { log: 420, table: 0 });
    // A restarted process (nothing remembered) reads the same rows, and an end moves them whole.
    await storage.close();
    const reopened = await open(path);
    const [last] = turns.slice(-1);
    assert.deepEqual((await texts(reopened, last!.chatId, last!.turn)).length, 6);
    await reopened.chats.finishTurn({ ...last!, status: 'completed' });
    assert.deepEqual(await texts(reopened, last!.chatId, last!.turn, 4), ['5:b69.2', '6:b69.3']);
    await reopened.close();
  });
});

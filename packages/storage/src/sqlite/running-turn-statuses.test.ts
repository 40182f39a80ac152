import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import { describe, test } from 'node:test';
import { temporaryDirectories } from '../__fixtures__/temporary-directories.ts';
import { openStorage } from '../open-storage.ts';
import { createRunningTurnStatuses } from './running-turn-statuses.ts';

// Appending packets trusts what it knows of a running turn's status while nothing else wrote. These tests change
// a status every way it can change behind the appends' back, and check the next append sees it.
const key = randomBytes(32).toString('base64');
const { databasePath } = temporaryDirectories('toolbus-turn-statuses-');
const open = (path: string) => openStorage({ path, secretKey: key, environment: {} });
const delta = (content: string) => ({ obj: { type: 'message-delta', content } });

/** A running turn, and another chat's beside it (see {@link appendWithNeighbour}). */
interface RunningTurn {
  readonly storage: Awaited<ReturnType<typeof open>>;
  readonly chatId: string;
  readonly turn: number;
  readonly neighbour: { readonly chatId: string; readonly turn: number };
}

/**
 * Appends to the turn together with another chat's running turn: only several turns' batches in one write read what
 * is known of their statuses (one turn's batch reads its status).
 */
async function appendWithNeighbour({ storage, chatId, turn, neighbour }: RunningTurn, content: string) {
  const [result] = await storage.chats.appendPacketBatches([
    { chatId, turn, packets: [delta(content)] },
    { ...neighbour, packets: [delta(content)] },
  ]);
  return result;
}

async function runningTurn(path: string) {
  const storage = await open(path);
  const user = await storage.users.create({ email: `${randomBytes(4).toString('hex')}@example.com` });
  const chat = await storage.chats.create({ userId: user.id });
  const turn = await storage.chats.startTurn({ chatId: chat.id });
  const other = await storage.chats.create({ userId: user.id });
  const neighbour = { chatId: other.id, turn: (await storage.chats.startTurn({ chatId: other.id })).index };
  const running: RunningTurn = { storage, chatId: chat.id, turn: turn.index, neighbour };
  // The first append learns that the turn runs.
  await appendWithNeighbour(running, 'a');
  return { ...running, user };
}

describe('running turn statuses known to the packet appends', () => {
  test('a turn ended by another connection: the next append goes after its end, in chat_packets', async () => {
    const path = databasePath();
    const running = await runningTurn(path);
    const { storage, chatId, turn } = running;
    const other = await open(path);
    try {
      await other.chats.finishTurn({ chatId, turn, status: 'completed' });
      await appendWithNeighbour(running, 'b');
      const database = new DatabaseSync(path, { readOnly: true });
      const rows = database
        .prepare('SELECT sequence FROM chat_packets WHERE chat_id = ? ORDER BY sequence')
        .all(chatId)
        .map((row) => row.sequence);
      const logged = database
        .prepare('SELECT COUNT(*) AS count FROM chat_packet_log WHERE chat_id = ?')
        .get(chatId);
      database.close();
      assert.deepEqual(rows, [1, 2]);
      assert.equal(logged?.count, 1, 'only the row moved at the end is in the log (not yet swept)');
    } finally {
      await other.close();
      await storage.close();
    }
  });

  test('a chat deleted with its user, through the query builder: the next append is refused', async () => {
    const path = databasePath();
    const running = await runningTurn(path);
    const { storage, user } = running;
    try {
      await storage.users.delete(user.id);
      const result = await appendWithNeighbour(running, 'b');
      assert.equal(result?.ok, false);
      assert.equal(result?.ok === false && (result.error as { code?: string }).code, 'not_found');
    } finally {
      await storage.close();
    }
  });

  test("a chat deleted on the same connection: its turn's next append is refused, its neighbour's is written", async () => {
    const path = databasePath();
    const running = await runningTurn(path);
    const { storage, chatId, neighbour } = running;
    try {
      assert.equal(await storage.chats.delete(chatId), true);
      const [deleted, written] = await storage.chats.appendPacketBatches([
        { chatId, turn: running.turn, packets: [delta('b')] },
        { ...neighbour, packets: [delta('b')] },
      ]);
      assert.equal(deleted?.ok === false && (deleted.error as { code?: string }).code, 'not_found');
      assert.deepEqual(written, { ok: true, last: 2 });
    } finally {
      await storage.close();
    }
  });

  test('a turn ended on the same connection, then a packet appended: stored after its end', async () => {
    const path = databasePath();
    const running = await runningTurn(path);
    const { storage, chatId, turn } = running;
    try {
      await storage.chats.finishTurn({ chatId, turn, status: 'completed' });
      await appendWithNeighbour(running, 'late');
      const packets = await storage.chats.listPackets({ chatId, turn });
      assert.deepEqual(
        packets.map(
          ({ sequence, packet }) => `${sequence}:${(packet as ReturnType<typeof delta>).obj.content}`,
        ),
        ['1:a', '2:late'],
      );
      assert.equal((await storage.chats.getTurn({ chatId, turn }))?.status, 'completed');
    } finally {
      await storage.close();
    }
  });

  test('known statuses are read once, and read again after a write they do not account for', () => {
    const database = new DatabaseSync(':memory:');
    database.exec(`CREATE TABLE chat_turns (chat_id TEXT, turn_index INTEGER, status TEXT);
      INSERT INTO chat_turns VALUES ('c', 0, 'running'), ('c', 1, 'completed');`);
    const statuses = createRunningTurnStatuses(database);
    statuses.check();
    assert.equal(statuses.statusOf('c', 0), 'running');
    assert.equal(statuses.statusOf('c', 1), 'completed');
    assert.equal(statuses.statusOf('c', 2), undefined);
    // A transaction that reported no status change leaves the stamp as its check took it (no second read).
    statuses.settled();
    // A write that touches no turn leaves what is known alone (a title, a new chat: they come all the time).
    database.exec(`CREATE TABLE chats (id TEXT, title TEXT); INSERT INTO chats VALUES ('c', 'a title')`);
    statuses.check();
    assert.equal(statuses.statusOf('c', 0), 'running');
    // A write the statuses do not know of, without a check: what they know is still served (the point of it)…
    database.exec(`UPDATE chat_turns SET status = 'failed' WHERE turn_index = 0`);
    assert.equal(statuses.statusOf('c', 0), 'running');
    // …and the next check sees the write and forgets it.
    statuses.check();
    assert.equal(statuses.statusOf('c', 0), 'failed');
    // A turn ended by a reported write is read again.
    database.exec(`UPDATE chat_turns SET status = 'running' WHERE turn_index = 1`);
    assert.equal(statuses.statusOf('c', 1), 'running');
    database.exec(`UPDATE chat_turns SET status = 'completed' WHERE turn_index = 1`);
    statuses.ended('c', 1);
    statuses.settled();
    statuses.check();
    assert.equal(statuses.statusOf('c', 1), 'completed');
    database.close();
  });
});

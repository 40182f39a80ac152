import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openStorage } from '../open-storage.ts';
import { loadDatabaseSync } from './load-database-sync.ts';

test('the running-turn check of a turn start looks up its own chat, not every running turn', async () => {
  const path = join(await mkdtemp(join(tmpdir(), 'toolbus-chats-')), 'toolbus.db');
  const storage = await openStorage({ path, secretKey: Buffer.alloc(32, 5), environment: {} });
  const user = await storage.users.create({ email: 'runner@example.com' });
  const chats = [];
  for (let index = 0; index < 20; index += 1) chats.push(await storage.chats.create({ userId: user.id }));
  for (const chat of chats) await storage.chats.startTurn({ chatId: chat.id });
  // Many other turns running at once change nothing: each chat still refuses a second one, and only its own.
  await assert.rejects(storage.chats.startTurn({ chatId: chats[7]!.id }), { code: 'conflict' });
  assert.equal((await storage.chats.listRunningTurns()).length, 20);
  await storage.chats.finishTurn({ chatId: chats[7]!.id, turn: 0, status: 'completed' });
  assert.equal((await storage.chats.startTurn({ chatId: chats[7]!.id })).index, 1);
  await storage.close();

  // The same lookup the store runs when a turn starts: SQLite answers it from an index keyed by chat (one
  // entry), not by scanning the entries of every running turn, whose number grows with the server's load.
  const database = new (loadDatabaseSync())(path, { readOnly: true });
  const plan = database
    .prepare("EXPLAIN QUERY PLAN SELECT turn_index FROM chat_turns WHERE chat_id = ? AND status = 'running'")
    .all('any') as { detail: string }[];
  database.close();
  assert.match(plan.map((step) => step.detail).join('\n'), /SEARCH chat_turns USING .*\(chat_id=\?\)/);
});

import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openStorage } from '../open-storage.ts';
import { loadDatabaseSync } from './load-database-sync.ts';
import { startWalCheckpointer } from './wal-checkpointer.ts';

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

test('with the connection’s own checkpoints off, the thread copies the log into the database file', async () => {
  const path = join(await mkdtemp(join(tmpdir(), 'toolbus-wal-')), 'raw.db');
  const database = new (loadDatabaseSync())(path);
  database.exec('PRAGMA journal_mode = WAL');
  database.exec('PRAGMA wal_autocheckpoint = 0');
  database.exec('CREATE TABLE rows (text TEXT NOT NULL)');
  const insert = database.prepare('INSERT INTO rows (text) VALUES (?)');
  const text = 'x'.repeat(4000);
  // About 4 MB, one commit per row: without a checkpoint it all stays in the log.
  for (let row = 0; row < 1000; row += 1) insert.run(text);
  const before = statSync(path).size;
  assert.ok(before < 100_000, `nothing checkpointed yet (${before} bytes)`);
  const checkpointer = await startWalCheckpointer(database, path, { intervalMs: 50 });
  assert.ok(checkpointer, 'the thread started');
  await waitFor(() => statSync(path).size > 3_000_000);
  assert.ok(statSync(path).size > 3_000_000, `database file ${statSync(path).size} bytes`);
  // Writes go on while it runs.
  for (let row = 0; row < 10; row += 1) insert.run(text);
  await checkpointer.stop();
  assert.equal((database.prepare('SELECT COUNT(*) AS n FROM rows').get() as { n: number }).n, 1010);
  database.close();
});

test('storage closes the thread’s connection before its own: the log is removed, nothing is lost', async () => {
  const path = join(await mkdtemp(join(tmpdir(), 'toolbus-wal-')), 'toolbus.db');
  const open = () => openStorage({ path, secretKey: Buffer.alloc(32, 7), environment: {} });
  const storage = await open();
  const user = await storage.users.create({ email: 'ada@example.com' });
  const chat = await storage.chats.create({ userId: user.id });
  await storage.chats.startTurn({ chatId: chat.id });
  const text = 'x'.repeat(4000);
  for (let batch = 0; batch < 50; batch += 1) {
    await storage.chats.appendPackets({
      chatId: chat.id,
      turn: 0,
      packets: Array.from({ length: 10 }, (_unused, index) => ({ batch, index, text })),
    });
  }
  assert.ok(existsSync(`${path}-wal`));
  await storage.close();
  assert.equal(existsSync(`${path}-wal`), false);
  const reopened = await open();
  assert.equal((await reopened.chats.listPackets({ chatId: chat.id, turn: 0, limit: 1000 })).length, 500);
  await reopened.close();
});

test('a log grown past the bound while a reader held it is truncated once every frame is copied', async () => {
  const path = join(await mkdtemp(join(tmpdir(), 'toolbus-wal-')), 'bounded.db');
  const database = new (loadDatabaseSync())(path);
  database.exec('PRAGMA journal_mode = WAL');
  // A write waits out the moment a truncation holds the log (storage's own connection waits asynchronously).
  database.exec('PRAGMA busy_timeout = 5000');
  database.exec('PRAGMA wal_autocheckpoint = 0');
  database.exec('CREATE TABLE rows (text TEXT NOT NULL)');
  // A reader in a long read transaction keeps the log from restarting at its start: it only grows, as under
  // a steady stream of followers at a high turn rate.
  const reader = new (loadDatabaseSync())(path);
  reader.exec('BEGIN');
  reader.prepare('SELECT COUNT(*) FROM rows').get();
  const checkpointer = await startWalCheckpointer(database, path, {
    intervalMs: 50,
    truncateAboveBytes: 1_000_000,
  });
  assert.ok(checkpointer, 'the thread started');
  const insert = database.prepare('INSERT INTO rows (text) VALUES (?)');
  const text = 'x'.repeat(4000);
  for (let row = 0; row < 1000; row += 1) insert.run(text);
  const grown = statSync(`${path}-wal`).size;
  assert.ok(grown > 3_000_000, `the log grew while the reader held it (${grown} bytes)`);
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.ok(statSync(`${path}-wal`).size >= grown, 'not truncated under the reader');
  reader.exec('COMMIT');
  await waitFor(() => statSync(`${path}-wal`).size === 0);
  assert.equal(statSync(`${path}-wal`).size, 0, 'truncated once idle');
  insert.run(text);
  await checkpointer.stop();
  assert.equal((database.prepare('SELECT COUNT(*) AS n FROM rows').get() as { n: number }).n, 1001);
  reader.close();
  database.close();
});

test('while the thread runs, the connection’s own automatic checkpoints are off', async () => {
  const path = join(await mkdtemp(join(tmpdir(), 'toolbus-wal-')), 'auto.db');
  const database = new (loadDatabaseSync())(path);
  database.exec('PRAGMA journal_mode = WAL');
  const autocheckpoint = () => ({ ...database.prepare('PRAGMA wal_autocheckpoint').get() });
  assert.deepEqual(autocheckpoint(), { wal_autocheckpoint: 1000 });
  const checkpointer = await startWalCheckpointer(database, path, { intervalMs: 50 });
  assert.ok(checkpointer, 'the thread started');
  assert.deepEqual(autocheckpoint(), { wal_autocheckpoint: 0 });
  await checkpointer.stop();
  database.close();
});

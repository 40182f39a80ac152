// The chat store's queries are compiled once per database (compiledOnce): a process with a SQLite and a PostgreSQL
// storage open must run each database's own SQL (`?` against `$1` placeholders), whichever compiled first.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { openStorage, type Storage } from '@toolbus/storage';
import { openPostgresStorage } from './open-postgres-storage.ts';
import { startTestPostgres, type TestPostgres } from './testing/start-test-postgres.ts';

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster.stop());

test('SQLite and PostgreSQL storages in one process each read and rename with their own compiled queries', async () => {
  const secretKey = randomBytes(32).toString('base64');
  const storages: Storage[] = [
    await openStorage({ path: ':memory:', secretKey, environment: {} }),
    await openPostgresStorage({ url: await cluster.createDatabase(), secretKey, environment: {} }),
  ];
  try {
    // Twice over both, so each query is first compiled for one database and then run on the other.
    for (const round of [1, 2]) {
      for (const storage of storages) {
        const user = await storage.users.create({ email: `ana-${round}@example.com` });
        const chat = await storage.chats.create({ userId: user.id });
        const turn = await storage.chats.startTurn({ chatId: chat.id });
        await storage.chats.finishTurn({
          chatId: chat.id,
          turn: turn.index,
          status: 'completed',
          messages: [{ role: 'user', content: `hello ${round}` }],
        });
        assert.equal((await storage.chats.getTurn({ chatId: chat.id, turn: 0 }))?.status, 'completed');
        assert.deepEqual(
          (await storage.chats.listTurns(chat.id)).map((each) => each.index),
          [0],
        );
        assert.deepEqual(
          (await storage.chats.listMessages(chat.id)).map((each) => each.message.content),
          [`hello ${round}`],
        );
        assert.equal((await storage.chats.rename(chat.id, `Round ${round}`)).title, `Round ${round}`);
        assert.equal((await storage.chats.get(chat.id))?.title, `Round ${round}`);
        assert.deepEqual(
          (await storage.chats.listForUser(user.id)).map((each) => each.id),
          [chat.id],
        );
      }
    }
  } finally {
    for (const storage of storages) await storage.close();
  }
});

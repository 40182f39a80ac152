// Two storages of one process on one SQLite file (replicas in one process, as the scale-out tests run them): a
// transaction of one spans awaits, and the other's writes meanwhile must wait for its lock without blocking the
// thread the first one needs to finish.
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openStorage } from '../open-storage.ts';

test('two storages on one file write at once without "database is locked"', async () => {
  const path = join(await mkdtemp(join(tmpdir(), 'toolbus-two-')), 'shared.db');
  const options = { path, secretKey: Buffer.alloc(32, 5), environment: {} };
  const first = await openStorage(options);
  const second = await openStorage(options);
  try {
    const user = await first.users.create({ email: 'both@example.com' });
    // Each round: a turn started, a packet and a finish (transactions) on one, chats created on the other.
    await Promise.all(
      [first, second].flatMap((storage) =>
        Array.from({ length: 20 }, async (_, index) => {
          const chat = await storage.chats.create({ userId: user.id, title: `chat ${index}` });
          const turn = await storage.chats.startTurn({ chatId: chat.id });
          await storage.chats.appendPackets({ chatId: chat.id, turn: turn.index, packets: [{ n: index }] });
          await storage.chats.finishTurn({ chatId: chat.id, turn: turn.index, status: 'completed' });
        }),
      ),
    );
    assert.equal((await second.chats.listForUser(user.id)).length, 40);
  } finally {
    await first.close();
    await second.close();
  }
});

// Packets reach PostgreSQL as one JSON array parameter (storage's json-array-parameter.ts), split by
// `json_array_elements`: every text must come back exactly, whatever quotes, backslashes, commas, brackets,
// escapes or non-ASCII characters it holds, on each path that writes them (messages: the chat store's conformance
// suite, on both databases).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Storage } from '@toolbus/storage';
import { hostileTexts } from '@toolbus/storage/testing';
import { openPostgresStorage } from './open-postgres-storage.ts';
import { startTestPostgres, type TestPostgres } from './testing/start-test-postgres.ts';

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster.stop());

/** A storage on a database of its own, closed after `use`, whatever it throws. */
async function withFreshStorage(use: (storage: Storage) => Promise<void>): Promise<void> {
  const storage = await openPostgresStorage({
    url: await cluster.createDatabase(),
    secretKey: randomBytes(32).toString('base64'),
    environment: {},
  });
  try {
    await use(storage);
  } finally {
    await storage.close();
  }
}

test('hostile packet texts come back exactly, appended one turn at a time and many turns at once', async () => {
  await withFreshStorage(async (storage) => {
    const user = await storage.users.create({ email: 'ana@example.com' });
    const chats = [
      await storage.chats.create({ userId: user.id }),
      await storage.chats.create({ userId: user.id }),
    ];
    const turns = await Promise.all(chats.map((chat) => storage.chats.startTurn({ chatId: chat.id })));
    const packets = [
      ...hostileTexts.map((content) => ({ content, nested: [content, { content }] })),
      null,
      7,
      'text',
    ];
    const [first, second] = chats.map((chat, index) => ({ chatId: chat.id, turn: turns[index]?.index ?? 0 }));
    assert.ok(first && second);
    assert.equal(await storage.chats.appendPackets({ ...first, packets }), packets.length);
    const appended = await storage.chats.appendPacketBatches([
      { ...second, packets },
      { ...first, packets: packets.slice(0, 2) },
      { ...second, packets: packets.slice(2) },
    ]);
    assert.deepEqual(appended, [
      { ok: true, last: packets.length },
      { ok: true, last: packets.length + 2 },
      { ok: true, last: 2 * packets.length - 2 },
    ]);
    const read = async (at: { chatId: string; turn: number }) =>
      (await storage.chats.listPackets({ ...at, limit: 1000 })).map((each) => each.packet);
    // JSON.stringify writes a lone surrogate as an escape, so the text read back is the same string.
    assert.deepEqual(await read(first), [...packets, ...packets.slice(0, 2)]);
    assert.deepEqual(await read(second), [...packets, ...packets.slice(2)]);
  });
});

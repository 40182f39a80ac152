import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Storage } from '@toolbus/storage';
import { storageMigrations } from '@toolbus/storage';
import pg from 'pg';
import { openPostgresStorage } from './open-postgres-storage.ts';
import { startTestPostgres, type TestPostgres } from './testing/start-test-postgres.ts';

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster.stop());

const secretKey = randomBytes(32).toString('base64');
const open = (url: string) => openPostgresStorage({ url, secretKey, environment: {} });

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return typeof address === 'object' && address !== null ? address.port : 0;
}

describe('opening PostgreSQL storage', () => {
  test('an unreachable server fails as unreachable, naming host and port but never the password', async () => {
    const port = await closedPort();
    const error = await openPostgresStorage({
      url: `postgres://toolbus:hunter2-very-secret@127.0.0.1:${port}/toolbus`,
      secretKey,
      environment: {},
      connectTimeoutMs: 2000,
    }).catch((caught: unknown) => caught);
    assert.equal((error as { code?: string }).code, 'unreachable');
    const message = (error as Error).message;
    assert.match(message, new RegExp(`127\\.0\\.0\\.1:${port}`));
    assert.match(message, /connection refused/);
    assert.ok(!message.includes('hunter2'), message);
  });

  test('a wrong password is refused as unreachable without repeating it', async () => {
    const url = new URL(await cluster.createDatabase());
    url.password = 'not-the-password-42';
    const error = await open(url.toString()).catch((caught: unknown) => caught);
    assert.equal((error as { code?: string }).code, 'unreachable');
    assert.match((error as Error).message, /password authentication failed/);
    assert.ok(!(error as Error).message.includes('not-the-password-42'));
  });

  test('a URL of another scheme is invalid_input; a missing key is invalid_secret_key', async () => {
    await assert.rejects(open('mysql://u:p@127.0.0.1/db'), { code: 'invalid_input' });
    await assert.rejects(openPostgresStorage({ url: cluster.adminUrl, environment: {} }), {
      code: 'invalid_secret_key',
    });
  });

  test('replicas opening a fresh database at once migrate it exactly once', async () => {
    const url = await cluster.createDatabase();
    const replicas = await Promise.all([open(url), open(url), open(url)]);
    for (const replica of replicas) assert.equal(await replica.schemaVersion(), storageMigrations.length);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query('SELECT version FROM schema_migrations ORDER BY version');
    await client.end();
    assert.deepEqual(
      rows.map((row) => row.version),
      storageMigrations.map((_, index) => index + 1),
    );
    await Promise.all(replicas.map((replica) => replica.close()));
  });

  test('a newer schema is refused with schema_too_new; another key with secret_key_mismatch', async () => {
    const url = await cluster.createDatabase();
    await (await open(url)).close();
    await assert.rejects(
      openPostgresStorage({ url, secretKey: randomBytes(32).toString('base64'), environment: {} }),
      { code: 'secret_key_mismatch' },
    );
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(
      "INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', now())",
    );
    await client.end();
    await assert.rejects(open(url), { code: 'schema_too_new' });
  });
});

describe('several replicas on one database', () => {
  let url: string;
  let replicas: Storage[];
  before(async () => {
    url = await cluster.createDatabase();
    replicas = [await open(url), await open(url), await open(url)];
  });
  after(async () => {
    await Promise.all(replicas.map((replica) => replica.close()));
  });

  test('only one of several replicas starting a turn of one chat at once wins', async () => {
    const [first] = replicas as [Storage];
    const user = await first.users.create({ email: 'race@example.com' });
    const chat = await first.chats.create({ userId: user.id });
    const outcomes = await Promise.allSettled(
      replicas.flatMap((replica) =>
        [replica, replica].map((each) => each.chats.startTurn({ chatId: chat.id })),
      ),
    );
    const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    assert.equal(won.length, 1);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') assert.equal((outcome.reason as { code?: string }).code, 'conflict');
    }
    assert.equal((await first.chats.listTurns(chat.id)).length, 1);
  });

  test('packets appended by several replicas at once get gapless sequences, each batch contiguous', async () => {
    const [first] = replicas as [Storage];
    const user = await first.users.create({ email: 'packets@example.com' });
    const chat = await first.chats.create({ userId: user.id });
    const turn = await first.chats.startTurn({ chatId: chat.id });
    const batches = Array.from({ length: 30 }, (_, batch) => [
      { batch, part: 0 },
      { batch, part: 1 },
    ]);
    const lasts = await Promise.all(
      batches.map((packets, index) =>
        replicas[index % replicas.length]!.chats.appendPackets({
          chatId: chat.id,
          turn: turn.index,
          packets,
        }),
      ),
    );
    const stored = await first.chats.listPackets({ chatId: chat.id, turn: turn.index });
    assert.deepEqual(
      stored.map((packet) => packet.sequence),
      Array.from({ length: 60 }, (_, index) => index + 1),
    );
    lasts.forEach((last, batch) => {
      assert.deepEqual(stored[last - 2]?.packet, { batch, part: 0 });
      assert.deepEqual(stored[last - 1]?.packet, { batch, part: 1 });
    });
  });

  test('history written by turns finished on different replicas keeps one gapless order', async () => {
    const [first, second] = replicas as [Storage, Storage];
    const user = await first.users.create({ email: 'history@example.com' });
    const chat = await first.chats.create({ userId: user.id });
    // Each turn is started on one replica and finished on the other.
    for (const [index, [starter, finisher]] of [
      [first, second],
      [second, first],
      [first, second],
    ].entries()) {
      const turn = await starter!.chats.startTurn({ chatId: chat.id });
      await finisher!.chats.finishTurn({
        chatId: chat.id,
        turn: turn.index,
        status: 'completed',
        messages: [
          { role: 'user', content: `question ${index}` },
          { role: 'assistant', content: `answer ${index}` },
        ],
      });
    }
    const history = await second.chats.listMessages(chat.id);
    assert.deepEqual(
      history.map((message) => [message.position, message.turn, message.message.content]),
      [0, 1, 2].flatMap((turn) => [
        [turn * 2, turn, `question ${turn}`],
        [turn * 2 + 1, turn, `answer ${turn}`],
      ]),
    );
  });

  test('closing at once and again ends the pool once; a closed storage refuses queries', async () => {
    const storage = await open(await cluster.createDatabase());
    await Promise.all([storage.close(), storage.close()]);
    await storage.close();
    await assert.rejects(storage.users.list());
  });
});

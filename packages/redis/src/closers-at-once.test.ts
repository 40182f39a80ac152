// Two replicas close one dead runner's turn at the same moment (a sweep and a redelivery, or two sweeps), on
// PostgreSQL with the shared packet log in Redis: one closes it, and storage, the log and a follower on a third
// replica hold its closing packets and answer once. The same race on SQLite: interrupted-answer-race.test.ts.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import {
  createServer,
  type ListeningServer,
  listen,
  type ScaleOutBackend,
  silentLogger,
  type ToolbusServer,
  TurnRunner,
  WORKER_LOST_TURN_REASON,
} from '@toolbus/server';
import type { Storage } from '@toolbus/storage';
import { openPostgresStorage } from '@toolbus/storage-postgres';
import { startTestPostgres, type TestPostgres } from '@toolbus/storage-postgres/testing';
import {
  assertClosedOnce,
  assertHistoryOnce,
  readingTogether,
  recordDeadTurn,
} from '../../server/src/__fixtures__/closers-at-once.ts';
import { readSse } from '../../server/src/__fixtures__/test-server.ts';
import { createRedisScaleOut } from './create-redis-scale-out.ts';
import { startRedisServer, type TestRedisServer } from './testing/index.ts';

let postgres: TestPostgres;
let redis: TestRedisServer;
const opened: { storage: Storage; backend: ScaleOutBackend }[] = [];
let reader: { storage: Storage; backend: ScaleOutBackend; server: ToolbusServer; http: ListeningServer };

/** One replica's connections: its own PostgreSQL pool and its own Redis scale-out backend. */
let openReplica: () => Promise<{ storage: Storage; backend: ScaleOutBackend }>;

before(async () => {
  [postgres, redis] = await Promise.all([startTestPostgres(), startRedisServer()]);
  const url = await postgres.createDatabase();
  const secretKey = randomBytes(32);
  openReplica = async () => {
    const replica = {
      storage: await openPostgresStorage({ url, secretKey, environment: {} }),
      backend: await createRedisScaleOut({ url: redis.url }),
    };
    opened.push(replica);
    return replica;
  };
  // The replica the readers ask over HTTP (no model is asked anything).
  const { storage, backend } = await openReplica();
  const server = await createServer({
    storage,
    scaleOut: backend,
    auth: 'local',
    defaultModel: 'openai-compatible:http://127.0.0.1:9/v1#unused',
  });
  reader = { storage, backend, server, http: await listen(server, { port: 0 }) };
});
after(async () => {
  await reader.http.close();
  await reader.server.close();
  for (const { storage, backend } of opened.reverse()) {
    await backend.close();
    await storage.close();
  }
  await Promise.all([redis.stop(), postgres.stop()]);
});

test('two replicas close one dead turn at once: storage, the shared log and a follower hold its end once', async () => {
  const response = await fetch(`${reader.http.url}/v1/chats`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  assert.equal(response.status, 201);
  const chatId = ((await response.json()) as { id: string }).id;
  const turn = await recordDeadTurn(reader.storage, chatId);
  const together = readingTogether(2);
  const closers = await Promise.all(
    [0, 1].map(async () => {
      const { storage, backend } = await openReplica();
      return new TurnRunner({ storage: together(storage), logger: silentLogger, scaleOut: backend });
    }),
  );
  const closed = await Promise.all(
    closers.map((closer) => closer.closeInterrupted(turn, WORKER_LOST_TURN_REASON)),
  );
  assert.deepEqual(
    closed.toSorted(),
    [false, true],
    'one replica closed the turn, the other found it closed',
  );

  assert.equal((await reader.storage.chats.getTurn({ chatId, turn: 0 }))?.status, 'interrupted');
  assertClosedOnce(await reader.storage.chats.listPackets({ chatId, turn: 0 }));
  await assertHistoryOnce(reader.storage, chatId, WORKER_LOST_TURN_REASON);
  // The shared log holds the winner's closing packets only, and the turn's end.
  const logged = await reader.backend.packets.read(chatId, 0, 0, { blockMs: 0 });
  assert.equal(logged.ended, true);
  assertClosedOnce(logged.packets);
  // A follower on another replica: the shared log, then storage for anything the log lacks.
  const events = await readSse(await fetch(`${reader.http.url}/v1/chats/${chatId}/turns/0/stream`));
  assertClosedOnce(events.map((event) => ({ sequence: Number(event.id), packet: JSON.parse(event.data) })));
});

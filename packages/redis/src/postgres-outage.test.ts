// PostgreSQL restarts while turns stream (a fast shutdown: sessions end mid-query), on a deployment of an API
// replica and a worker replica on PostgreSQL and Redis. Failed writes are retried within a bound: a restart
// shorter than it loses nothing and the turn completes; a longer one stops the turn, which is closed with its
// reason once the database is back, nothing half-written.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { STORAGE_FAILED_TURN_REASON } from '@toolbus/server';
import { openPostgresStorage } from '@toolbus/storage-postgres';
import { startTestPostgres, type TestPostgres } from '@toolbus/storage-postgres/testing';
import { readSse } from '../../server/src/__fixtures__/test-server.ts';
import {
  assertTurnSurvives,
  assertWholeTurn,
  type OutageDeployment,
  startOutageDeployment,
  turnThroughOutage,
} from './__fixtures__/outage-deployment.ts';
import { startRedisServer, type TestRedisServer } from './testing/index.ts';

/** How long the replicas retry a write: the short restart fits in it, the long one does not. */
const writeRetryMs = 6_000;

let postgres: TestPostgres;
let redis: TestRedisServer;
let deployment: OutageDeployment;

before(async () => {
  [postgres, redis] = await Promise.all([startTestPostgres(), startRedisServer()]);
  const url = await postgres.createDatabase();
  const secretKey = randomBytes(32);
  const first = await openPostgresStorage({ url, secretKey, environment: {} });
  const persona = await first.personas.create({ name: 'default', description: 'test persona' });
  await first.personas.addToolRow(persona.id, { kind: 'built-in', builtInId: 'SearchTool' });
  await first.close();
  deployment = await startOutageDeployment({
    redisUrl: redis.url,
    openStorage: () => openPostgresStorage({ url, secretKey, environment: {} }),
    server: { storageRetry: { writeMs: writeRetryMs } },
  });
});
after(async () => {
  await deployment.close();
  await Promise.all([redis.stop(), postgres.stop()]);
});

test('PostgreSQL restarted mid-turn within the retry bound: the turn completes, every packet stored and served once', async () => {
  await assertTurnSurvives(deployment, () => postgres.restart({ downMs: 1_000 }));
});

test('PostgreSQL down longer than the retry bound: the turn is stopped and closed with its reason once the database is back', async () => {
  const chatId = await deployment.newChat();
  const { seen, outage } = await turnThroughOutage(deployment, chatId, () =>
    postgres.restart({ downMs: writeRetryMs + 3_000 }),
  );
  await outage;
  await assertWholeTurn(deployment, chatId, 0, seen, 'failed');
  const storage = deployment.api.storage;
  assert.equal((await storage.chats.getTurn({ chatId, turn: 0 }))?.endReason, STORAGE_FAILED_TURN_REASON);
  const stored = await storage.chats.listPackets({ chatId, turn: 0 });
  const objs = stored.map(
    (packet) => (packet.packet as { obj: { type: string; [key: string]: unknown } }).obj,
  );
  assert.deepEqual(objs.at(-1), { type: 'stop', reason: 'error' });
  assert.ok(
    objs.some((obj) => obj.type === 'error' && obj.code === 'storage_unavailable'),
    'the stream says why, in toolbus words',
  );
  // Nothing half-written: every tool call that started has its end, and the history is the question and the
  // answer as far as it was stored, with the reason.
  assert.equal(
    objs.filter((obj) => obj.type === 'tool-start').length,
    objs.filter((obj) => obj.type === 'section-end').length,
  );
  const messages = (await storage.chats.listMessages(chatId)).filter((message) => message.turn === 0);
  assert.deepEqual(
    messages.map((message) => message.message.role),
    ['user', 'assistant'],
  );
  assert.match(messages[1]?.message.content ?? '', /database did not answer/);
  const next = await readSse(await deployment.send(chatId, 'And exchanges?'));
  await assertWholeTurn(deployment, chatId, 1, [next]);
});

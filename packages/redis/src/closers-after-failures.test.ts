// Closers of a turn on PostgreSQL with the shared packet log in Redis, when the network fails them: a closer whose
// end committed but whose reply was lost (a proxy on loopback drops the connection after COMMIT) still knows the end
// is its own and ends the shared log; a turn storage failed (the proxy cuts the network) is closed once storage is
// back, once, whether its runner or another closer ends it. The SQLite side: the conformance suite (end tokens) and
// packages/server/src/chats/storage-failure-race.test.ts.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { type ScaleOutBackend, silentLogger, TurnRunner, WORKER_LOST_TURN_REASON } from '@toolbus/server';
import type { Storage, StoredPacket } from '@toolbus/storage';
import { openPostgresStorage } from '@toolbus/storage-postgres';
import {
  type CommitReplyLossProxy,
  startCommitReplyLossProxy,
  startTestPostgres,
  type TestPostgres,
} from '@toolbus/storage-postgres/testing';
import {
  assertClosedOnce,
  assertHistoryOnce,
  recordDeadTurn,
} from '../../server/src/__fixtures__/closers-at-once.ts';
import {
  assertClosedOnceAfterFailure,
  otherEndsFirst,
  raceClosersAfterStorageFailure,
} from '../../server/src/__fixtures__/storage-failure-race.ts';
import { createRedisScaleOut } from './create-redis-scale-out.ts';
import { startRedisServer, type TestRedisServer } from './testing/index.ts';

/** The statement that ends a turn: the proxy loses the reply to the COMMIT of its transaction. */
const endingStatement = 'UPDATE chat_turns SET status';

let postgres: TestPostgres;
let redis: TestRedisServer;
let proxy: CommitReplyLossProxy;
const opened: { storage: Storage; backend: ScaleOutBackend }[] = [];
/** A replica's connections: PostgreSQL directly or through the proxy, and Redis. */
let openReplica: (through?: 'proxy') => Promise<{ storage: Storage; backend: ScaleOutBackend }>;
let reader: { storage: Storage; backend: ScaleOutBackend };
let userId: string;

before(async () => {
  [postgres, redis] = await Promise.all([startTestPostgres(), startRedisServer()]);
  const url = await postgres.createDatabase();
  proxy = await startCommitReplyLossProxy(url);
  const secretKey = randomBytes(32);
  openReplica = async (through) => {
    const replica = {
      storage: await openPostgresStorage({ url: through ? proxy.url : url, secretKey, environment: {} }),
      backend: await createRedisScaleOut({ url: redis.url }),
    };
    opened.push(replica);
    return replica;
  };
  reader = await openReplica();
  userId = (await reader.storage.users.create({ email: 'ada@example.com' })).id;
});
after(async () => {
  for (const { storage, backend } of opened.reverse()) {
    await backend.close();
    await storage.close();
  }
  await proxy.close();
  await Promise.all([redis.stop(), postgres.stop()]);
});

/** The shared log of a turn, ended, holding what storage holds. */
async function assertLogEnded(chatId: string, stored: readonly StoredPacket[]): Promise<void> {
  const logged = await reader.backend.packets.read(chatId, 0, 0, { blockMs: 0 });
  assert.equal(logged.ended, true, 'the shared log is ended: followers are released at once');
  assert.deepEqual(logged.packets, stored);
}

test("a dead turn's closer whose end committed but whose reply was lost knows it closed the turn, and ends the log", async () => {
  const chatId = (await reader.storage.chats.create({ userId })).id;
  const turn = await recordDeadTurn(reader.storage, chatId);
  const { storage, backend } = await openReplica('proxy');
  const closer = new TurnRunner({ storage, logger: silentLogger, scaleOut: backend });
  const lost = proxy.loseCommitReply(endingStatement);
  assert.equal(await closer.closeInterrupted(turn, WORKER_LOST_TURN_REASON), true);
  await lost;
  const stored = await reader.storage.chats.listPackets({ chatId, turn: 0 });
  assertClosedOnce(stored);
  await assertHistoryOnce(reader.storage, chatId, WORKER_LOST_TURN_REASON);
  await assertLogEnded(chatId, stored);
});

for (const closers of ['its runner, whose end reply is lost', 'another closer first'] as const)
  test(`a turn storage failed, closed once the network is back by ${closers}: stored and logged once`, async () => {
    const runnerReplica = await openReplica('proxy');
    const otherReplica = await openReplica();
    const order = otherEndsFirst();
    let lost: Promise<void> | undefined;
    const { chatId, ended } = await raceClosersAfterStorageFailure({
      // No retry of a failed write: the first failure stops the turn.
      runner: new TurnRunner({
        storage:
          closers === 'another closer first' ? order.runner(runnerReplica.storage) : runnerReplica.storage,
        logger: silentLogger,
        scaleOut: runnerReplica.backend,
        storageRetry: { writeMs: 0 },
      }),
      ...(closers === 'another closer first' && {
        other: {
          closer: new TurnRunner({
            storage: order.other(otherReplica.storage),
            logger: silentLogger,
            scaleOut: otherReplica.backend,
          }),
          order,
        },
      }),
      storage: reader.storage,
      userId,
      fail: () => proxy.cut(),
      recover: () => {
        proxy.mend();
        if (closers !== 'another closer first') lost = proxy.loseCommitReply(endingStatement);
      },
    });
    await lost;
    assert.equal(ended, closers === 'another closer first' ? 'other' : 'runner');
    await assertClosedOnceAfterFailure(reader.storage, chatId, ended);
    await assertLogEnded(chatId, await reader.storage.chats.listPackets({ chatId, turn: 0 }));
  });

// Redis goes away for a few seconds while turns stream, then comes back (restarted with its data, or empty after a
// crash). Storage is the record and Redis a cache: the turn goes on and ends with its `stop`, every stored packet
// is served (from storage while Redis lacks it), a resume of the ended turn reaches its end, and nothing a client
// sees is the Redis client's wording. Replicas in one process on one Redis and one storage file.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openStorage } from '@toolbus/storage';
import { eventually, openTestStorage, readSse } from '../../server/src/__fixtures__/test-server.ts';
import {
  assertTurnSurvives,
  assertWholeTurn,
  type OutageDeployment,
  startOutageDeployment,
  turnThroughOutage,
} from './__fixtures__/outage-deployment.ts';
import { startRedisServer, type TestRedisServer } from './testing/index.ts';

let redis: TestRedisServer;
let deployment: OutageDeployment;

before(async () => {
  redis = await startRedisServer();
  const seeded = await openTestStorage();
  await seeded.storage.close();
  deployment = await startOutageDeployment({
    redisUrl: redis.url,
    openStorage: () => openStorage({ path: seeded.path, secretKey: Buffer.alloc(32, 3), environment: {} }),
  });
});
after(async () => {
  await deployment.close();
  await redis.stop();
});

test('Redis restarted with its data mid-turn: the turn completes, every packet is served once, resumes reach the end', async () => {
  await assertTurnSurvives(deployment, () => redis.restart({ downMs: 3_000, keepData: true }));
});

test('Redis lost everything mid-turn (a crash): storage serves what Redis lacks; a turn ending while Redis is away is closed with its stop', async () => {
  const chatId = await deployment.newChat();
  const storage = deployment.api.storage;
  let closedWhileAway = false;
  const { seen, outage } = await turnThroughOutage(deployment, chatId, async () => {
    const restarting = redis.restart({ downMs: 7_000, keepData: false });
    // The turn ends during the outage: its end and stop are in storage before Redis is back.
    const ended = await eventually(async () => {
      const record = await storage.chats.getTurn({ chatId, turn: 0 });
      return record?.status === 'running' ? undefined : record;
    }, 20_000);
    assert.equal(ended.status, 'completed');
    const stored = await storage.chats.listPackets({ chatId, turn: 0 });
    assert.equal((stored.at(-1)?.packet as { obj?: { type: string } } | undefined)?.obj?.type, 'stop');
    closedWhileAway = redis.process.exitCode !== null || redis.process.signalCode !== null;
    await restarting;
  });
  await outage;
  assert.ok(closedWhileAway, 'the turn ended while Redis was down');
  await assertWholeTurn(deployment, chatId, 0, seen);
  const next = await readSse(await deployment.send(chatId, 'And exchanges?'));
  await assertWholeTurn(deployment, chatId, 1, [next]);
});

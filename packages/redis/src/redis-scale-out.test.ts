import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ScaleOutBackend, singleFlight } from '@toolbus/server';
import { Redis } from 'ioredis';
import { createRedisScaleOut } from './create-redis-scale-out.ts';
import { RedisScaleOutError } from './redis-scale-out-error.ts';
import { startRedisServer, type TestRedisServer } from './testing/index.ts';

let redis: TestRedisServer;
let first: ScaleOutBackend;
let second: ScaleOutBackend;

before(async () => {
  redis = await startRedisServer();
  first = await createRedisScaleOut({ url: redis.url, slotTtlMs: 2_000 });
  second = await createRedisScaleOut({ url: redis.url, slotTtlMs: 2_000 });
});
after(async () => {
  await first.close();
  await second.close();
  await redis.stop();
});

const packet = (sequence: number) => ({
  sequence,
  packet: { obj: { type: 'message-delta', content: `p${sequence}` } },
});

describe('the turn packet log', () => {
  test('resume after a cursor reads each packet once, in order; repeats are skipped and gaps refused', async () => {
    const log = first.packets;
    await log.append('chat-a', 0, [packet(1), packet(2), packet(3)]);
    // A closer re-appending what the dead writer already appended: skipped, not duplicated.
    await log.append('chat-a', 0, [packet(2), packet(3), packet(4)]);
    await assert.rejects(log.append('chat-a', 0, [packet(6)]), (error: unknown) => {
      assert.ok(RedisScaleOutError.isInstance(error));
      assert.equal(error.code, 'packet_gap');
      return true;
    });
    assert.equal(await second.packets.lastSequence('chat-a', 0), 4);
    const resumed = await second.packets.read('chat-a', 0, 2, { blockMs: 0 });
    assert.deepEqual(
      resumed.packets.map((stored) => stored.sequence),
      [3, 4],
    );
    assert.deepEqual(resumed.packets[0]?.packet, packet(3).packet);
    assert.equal(resumed.ended, false);
    await log.end('chat-a', 0);
    await log.end('chat-a', 0);
    const ended = await second.packets.read('chat-a', 0, 4, { blockMs: 0 });
    assert.deepEqual(ended, { packets: [], ended: true });
    assert.equal(await second.packets.lastSequence('chat-a', 0), 4, 'the end is not a packet');
    await assert.rejects(log.append('chat-a', 0, [packet(5)]), /has ended/);
  });

  test('a follower blocked on XREAD wakes with packets another replica appends', async () => {
    const waiting = second.packets.read('chat-b', 3, 0, { blockMs: 5_000 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    await first.packets.append('chat-b', 3, [packet(1), packet(2)]);
    const read = await waiting;
    assert.ok(Date.now() - started < 4_000, 'woken by the append, not by the timeout');
    assert.deepEqual(
      read.packets.map((stored) => stored.sequence),
      [1, 2],
    );
    // Many followers at once each get a connection of their own: none waits behind another's block.
    const followers = Array.from({ length: 20 }, () =>
      second.packets.read('chat-b', 3, 2, { blockMs: 5_000 }),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    await first.packets.append('chat-b', 3, [packet(3)]);
    for (const follower of await Promise.all(followers)) {
      assert.deepEqual(
        follower.packets.map((stored) => stored.sequence),
        [3],
      );
    }
  });

  test('an ended turn is forgotten after the retention', async () => {
    const short = await createRedisScaleOut({ url: redis.url, endedTurnRetentionMs: 100 });
    try {
      await short.packets.append('chat-c', 0, [packet(1)]);
      await short.packets.end('chat-c', 0);
      await new Promise((resolve) => setTimeout(resolve, 250));
      assert.deepEqual(await short.packets.read('chat-c', 0, 0, { blockMs: 0 }), {
        packets: [],
        ended: false,
      });
    } finally {
      await short.close();
    }
  });
});

describe('stops, slots and locks across replicas', () => {
  test('a stop requested on one replica reaches the listener of another, and stays requested', async () => {
    const heard: string[] = [];
    const unsubscribe = await second.stops.subscribe((chatId, turn) => heard.push(`${chatId}/${turn}`));
    assert.equal(await second.stops.requested('chat-s', 1), false);
    await first.stops.request('chat-s', 1);
    const deadline = Date.now() + 5_000;
    while (heard.length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(heard, ['chat-s/1']);
    assert.equal(await second.stops.requested('chat-s', 1), true);
    await unsubscribe();
  });

  test('per-user slots are taken atomically against the limit by racing replicas, and lapse unrefreshed', async () => {
    const attempts = await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        (index % 2 ? first : second).slots.acquire('user-1', `holder-${index}`, 3),
      ),
    );
    assert.equal(attempts.filter(Boolean).length, 3);
    assert.equal(await first.slots.acquire('user-2', 'other-user', 3), true, 'limits are per user');
    const holders = attempts.flatMap((taken, index) => (taken ? [`holder-${index}`] : []));
    await second.slots.release('user-1', holders[0] as string);
    assert.equal(await first.slots.acquire('user-1', 'late', 3), true, 'a released slot is free');
    assert.equal(await first.slots.acquire('user-1', 'later', 3), false);
    // Keep one slot alive; the others' replica "died" (no refresh): they lapse after the TTL (2 s).
    const kept = holders[1] as string;
    for (let index = 0; index < 12; index += 1) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      await first.slots.refresh('user-1', kept);
    }
    assert.equal(await first.slots.acquire('user-1', 'after-lapse-1', 3), true);
    assert.equal(await first.slots.acquire('user-1', 'after-lapse-2', 3), true);
    assert.equal(
      await first.slots.acquire('user-1', 'after-lapse-3', 3),
      false,
      'the refreshed slot still counts',
    );
  });

  test('the request allowance is one bucket per user across replicas: racing takes admit the limit, then wait', async () => {
    const started = Date.now();
    const takes = await Promise.all(
      Array.from({ length: 70 }, (_, index) => (index % 2 ? first : second).rateLimit.take('user-r', 60)),
    );
    const elapsedSeconds = (Date.now() - started) / 1000;
    const allowed = takes.filter((wait) => wait === undefined).length;
    // 60 a minute is one a second: a slow machine may refill a few during the race.
    assert.ok(allowed >= 60 && allowed <= 60 + Math.ceil(elapsedSeconds), `${allowed} allowed`);
    assert.ok(
      takes.every((wait) => wait === undefined || wait === 1),
      'a refused take waits about one refill (1 s)',
    );
    assert.equal(await first.rateLimit.take('user-other', 60), undefined, 'buckets are per user');
    // It refills: within a couple of seconds one more request is allowed, on either replica.
    const deadline = Date.now() + 5_000;
    let later = await second.rateLimit.take('user-r', 60);
    while (later !== undefined && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      later = await first.rateLimit.take('user-r', 60);
    }
    assert.equal(later, undefined);
  });

  test('a single-flight lock admits one holder; release and extend check the token; it lapses', async () => {
    const token = await first.locks.acquire('oauth:user-1:server-1', 2_000);
    assert.ok(token);
    assert.equal(await second.locks.acquire('oauth:user-1:server-1', 2_000), undefined);
    assert.equal(await second.locks.release('oauth:user-1:server-1', 'not-the-token'), false);
    assert.equal(await second.locks.extend('oauth:user-1:server-1', 'not-the-token', 2_000), false);
    assert.equal(await first.locks.extend('oauth:user-1:server-1', token, 1_000), true);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const next = await second.locks.acquire('oauth:user-1:server-1', 2_000);
    assert.ok(next, 'a dead holder frees the lock by expiry');
    assert.equal(
      await first.locks.release('oauth:user-1:server-1', token),
      false,
      'a lapsed holder cannot release',
    );
    assert.equal(await second.locks.release('oauth:user-1:server-1', next), true);
  });

  test('singleFlight over the Redis lock: racing refreshes on two replicas run one at a time', async () => {
    let inside = 0;
    let most = 0;
    let runs = 0;
    const refresh = async () => {
      inside += 1;
      most = Math.max(most, inside);
      await new Promise((resolve) => setTimeout(resolve, 20));
      inside -= 1;
      runs += 1;
    };
    await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        singleFlight({ lock: (index % 2 ? first : second).locks, key: 'refresh', pollMs: 5 }, refresh),
      ),
    );
    assert.equal(runs, 8);
    assert.equal(most, 1);
  });
});

test('a Redis URL nobody answers is refused at start with redis_unavailable, without the password', async () => {
  const stopped = await startRedisServer();
  const url = stopped.url.replace('redis://', 'redis://:hunter2-secret@');
  await stopped.stop();
  await assert.rejects(createRedisScaleOut({ url, connectTimeoutMs: 500 }), (error: unknown) => {
    assert.ok(RedisScaleOutError.isInstance(error));
    assert.equal(error.code, 'redis_unavailable');
    assert.ok(!error.message.includes('hunter2'));
    return true;
  });
});

test('the test server keeps nothing on disk: no RDB snapshot, no append-only file', async () => {
  const client = new Redis(redis.url);
  try {
    const save = (await client.config('GET', 'save')) as string[];
    const appendonly = (await client.config('GET', 'appendonly')) as string[];
    assert.deepEqual(save, ['save', '']);
    assert.deepEqual(appendonly, ['appendonly', 'no']);
  } finally {
    client.disconnect();
  }
});

// Turns recorded as running that no replica will ever run: the queue refused the turn (closed at once, the client
// told), or the API replica died between recording and queueing it (closed by a worker replica's sweep). A turn a
// live worker runs is never closed. Replicas in one process on one Redis and one storage file.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ScriptedModelServer } from '@toolbus/core/testing';
import {
  ABANDONED_TURN_REASON,
  type AbandonedTurnSweepTiming,
  NOT_QUEUED_TURN_REASON,
} from '@toolbus/server';
import { omitUndefined } from '@toolbus/spec';
import { Redis } from 'ioredis';
import { eventually, lookupToolFactories, readSse } from '../../server/src/__fixtures__/test-server.ts';
import {
  longQuestion,
  newChat,
  type Replica,
  type ServerReplicas,
  send,
  serverReplicas,
  startLookupModel,
} from './__fixtures__/server-replicas.ts';
import { startRedisServer, type TestRedisServer } from './testing/index.ts';

let redis: TestRedisServer;
let admin: Redis;
let model: ScriptedModelServer;
let replicas: ServerReplicas;
let api: Replica;
let worker: Replica;

function startReplica(options: {
  readonly worker: boolean;
  readonly url?: string;
  readonly sweep?: AbandonedTurnSweepTiming;
}): Promise<Replica> {
  return replicas.start({
    scaleOut: {
      worker: options.worker,
      queue: { enqueueTimeoutMs: 2_000 },
      ...omitUndefined({ url: options.url, abandonedTurnSweep: options.sweep }),
    },
    server: () => ({
      auth: 'local',
      defaultModel: `openai-compatible:${model.url}/v1#scripted`,
      builtInToolFactories: () => lookupToolFactories(),
      limits: { concurrentTurnsPerUser: 4 },
      heartbeatMs: 200,
    }),
  });
}

const stopReplica = (replica: Replica) => replicas.stop(replica);

before(async () => {
  redis = await startRedisServer();
  admin = new Redis(redis.url);
  // The long question's answer takes about 4 s: sweeps run meanwhile, while a live worker runs it.
  model = await startLookupModel({ chunkDelayMs: 20 });
  replicas = await serverReplicas({ redisUrl: redis.url });
  api = await startReplica({ worker: false });
  // The first worker sweeps turns older than 300 ms when it starts, then only every minute (the default).
  worker = await startReplica({ worker: true, sweep: { graceMs: 300 } });
});
after(async () => {
  await replicas.close();
  admin.disconnect();
  await model.close();
  await redis.stop();
});

/** A turn as the dead API replica left it: recorded as running, never queued. */
async function recordOrphan(content: string): Promise<{ chatId: string; turn: number }> {
  const chatId = await newChat(api);
  const record = await api.storage.chats.startTurn({ chatId, input: [{ role: 'user', content }] });
  return { chatId, turn: record.index };
}

async function finished(chatId: string, turn = 0) {
  return eventually(async () => {
    const record = await api.storage.chats.getTurn({ chatId, turn });
    return record?.status === 'running' ? undefined : record;
  });
}

/** The packet types of a turn, replayed through a replica. */
async function packetTypes(replica: Replica, chatId: string, turn = 0): Promise<string[]> {
  const events = await readSse(await fetch(`${replica.http.url}/v1/chats/${chatId}/turns/${turn}/stream`));
  return events.map((event) => (JSON.parse(event.data) as { obj: { type: string } }).obj.type);
}

test('a turn the queue refuses is closed with the reason, its slot freed, and the client told (503)', async () => {
  // An API replica whose Redis user may use slots, rates, stops and locks but not the queue's keys: Redis refuses the
  // job (NOPERM) after the turn is recorded, as a queue failing at that moment would.
  await admin.call(
    'ACL',
    'SETUSER',
    'no-queue',
    'on',
    '>no-queue-password',
    'resetkeys',
    '~toolbus:slots:*',
    '~toolbus:rate:*',
    '~toolbus:turn:*',
    '~toolbus:lock:*',
    'resetchannels',
    '&*',
    '+@all',
  );
  const refusing = await startReplica({
    worker: false,
    url: redis.url.replace('redis://', 'redis://no-queue:no-queue-password@'),
  });
  try {
    const chatId = await newChat(refusing);
    const response = await send(refusing, chatId, 'Will this run?', 'none');
    assert.equal(response.status, 503);
    assert.equal(response.headers.get('retry-after'), '5');
    const body = (await response.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'unavailable');
    assert.match(body.error.message, /could not be queued/);
    assert.ok(!body.error.message.includes('no-queue-password'), 'no credential in the answer');

    const record = await api.storage.chats.getTurn({ chatId, turn: 0 });
    assert.equal(record?.status, 'interrupted');
    assert.equal(record?.endReason, NOT_QUEUED_TURN_REASON);
    assert.deepEqual(await packetTypes(api, chatId), ['stop']);
    const messages = await api.storage.chats.listMessages(chatId);
    assert.deepEqual(
      messages.map((stored) => stored.message.role),
      ['user', 'assistant'],
    );
    assert.match(messages[1]?.message.content ?? '', /never ran/);
    const chat = await api.storage.chats.get(chatId);
    assert.equal(await admin.zcard(`toolbus:slots:${chat?.userId}`), 0, 'the slot was given back');

    // The chat is not stuck: the next message, through a replica whose queue works, runs.
    const again = await send(api, chatId, 'How long do refunds take?', 'none');
    assert.equal(again.status, 202);
    assert.equal((await finished(chatId, 1)).status, 'completed');
  } finally {
    await stopReplica(refusing);
    await admin.call('ACL', 'DELUSER', 'no-queue');
  }
});

test('a worker replica that starts closes the turns never queued; the turn a live worker runs goes on', async () => {
  const live = await newChat(api);
  assert.equal((await send(api, live, longQuestion, 'none')).status, 202);
  // Running on the worker (the tool ran), and older than any grace below.
  await eventually(async () =>
    (await api.storage.chats.listPackets({ chatId: live, turn: 0 })).some(
      (packet) => (packet.packet as { obj: { type: string } }).obj.type === 'section-end',
    )
      ? true
      : undefined,
  );
  const orphan = await recordOrphan('Lost between recording and queueing');
  await new Promise((resolve) => setTimeout(resolve, 400));
  const joined = await startReplica({ worker: true, sweep: { graceMs: 350 } });
  // Its start-up sweep ran before createServer resolved: the orphan is closed, the live turn is not.
  const closed = await api.storage.chats.getTurn({ chatId: orphan.chatId, turn: orphan.turn });
  assert.equal(closed?.status, 'interrupted');
  assert.equal(closed?.endReason, ABANDONED_TURN_REASON);
  assert.deepEqual(await packetTypes(joined, orphan.chatId), ['stop']);
  const history = await api.storage.chats.listMessages(orphan.chatId);
  assert.equal(history[0]?.message.content, 'Lost between recording and queueing');
  assert.match(
    history[1]?.message.content ?? '',
    /This answer was interrupted: No server replica was running/,
  );
  assert.equal((await api.storage.chats.getTurn({ chatId: live, turn: 0 }))?.status, 'running');

  const record = await finished(live);
  assert.equal(record.status, 'completed', 'the live turn ran to its end');
  const types = await packetTypes(api, live);
  assert.equal(types.filter((type) => type === 'stop').length, 1);
  await stopReplica(joined);
});

test('the periodic sweep closes an abandoned turn once, however many worker replicas sweep at once', async () => {
  const sweepers = await Promise.all([
    startReplica({ worker: true, sweep: { graceMs: 200, intervalMs: 100 } }),
    startReplica({ worker: true, sweep: { graceMs: 200, intervalMs: 100 } }),
  ]);
  try {
    const orphan = await recordOrphan('Nobody queued me');
    // Swept by the periodic sweeps (each every 100 ms on two replicas) and by direct calls racing them.
    const direct = await Promise.all(
      [worker, ...sweepers].map(async (replica) => {
        await new Promise((resolve) => setTimeout(resolve, 250));
        return replica.server.turns.closeAbandonedTurns({ graceMs: 200 });
      }),
    );
    const record = await finished(orphan.chatId, orphan.turn);
    assert.equal(record.status, 'interrupted');
    assert.equal(record.endReason, ABANDONED_TURN_REASON);
    assert.ok(direct.every((count) => count <= 1));
    assert.deepEqual(await packetTypes(api, orphan.chatId), ['stop'], 'closed once: one stop packet');
    assert.equal((await api.storage.chats.listMessages(orphan.chatId)).length, 2);
  } finally {
    for (const replica of sweepers) await stopReplica(replica);
  }
});

test('a turn waiting in the queue for a worker, or younger than the grace, is not abandoned', async () => {
  // No worker takes jobs meanwhile: the queued turn waits in the queue, older than the grace.
  await stopReplica(worker);
  const chatId = await newChat(api);
  assert.equal((await send(api, chatId, 'How long do refunds take?', 'none')).status, 202);
  // A turn just recorded could be one an API replica is queueing right now.
  const young = await recordOrphan('Recorded a moment ago');
  assert.equal(await api.server.turns.closeAbandonedTurns({ graceMs: 60_000 }), 0);
  assert.equal((await api.storage.chats.getTurn({ chatId: young.chatId, turn: 0 }))?.status, 'running');
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(await api.server.turns.closeAbandonedTurns({ graceMs: 100 }), 1, 'only the unqueued one');
  assert.equal((await api.storage.chats.getTurn({ chatId: young.chatId, turn: 0 }))?.status, 'interrupted');
  assert.equal((await api.storage.chats.getTurn({ chatId, turn: 0 }))?.status, 'running');
  // A worker arrives: it runs the queued turn, its start-up sweep leaves it alone.
  worker = await startReplica({ worker: true, sweep: { graceMs: 100 } });
  assert.equal((await finished(chatId)).status, 'completed');
});

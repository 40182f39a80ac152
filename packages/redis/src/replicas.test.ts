// Server replicas in one process, sharing one Redis and one storage file: an API-only replica takes requests, a
// worker replica runs the turns. What one sees of a turn another runs: packets, resume, stop, the user's limit.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ScriptedModelServer } from '@toolbus/core/testing';
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
let model: ScriptedModelServer;
let replicas: ServerReplicas;
let api: Replica;
let otherApi: Replica;

function startReplica(worker: boolean): Promise<Replica> {
  return replicas.start({
    // A short grace: a starting worker's sweep looks at every running turn, the live ones included.
    scaleOut: { worker, abandonedTurnSweep: { graceMs: 100 } },
    server: () => ({
      auth: 'local',
      defaultModel: `openai-compatible:${model.url}/v1#scripted`,
      builtInToolFactories: () => lookupToolFactories({ delayMs: 400 }),
      limits: { concurrentTurnsPerUser: 2 },
      heartbeatMs: 200,
    }),
  });
}

before(async () => {
  redis = await startRedisServer();
  // A question asking for a long answer gets one (about 4 s): time for another replica to start meanwhile.
  model = await startLookupModel({ chunkDelayMs: 40 });
  replicas = await serverReplicas({ redisUrl: redis.url });
  api = await startReplica(false);
  otherApi = await startReplica(false);
  await startReplica(true);
});
after(async () => {
  await replicas.close();
  await model.close();
  await redis.stop();
});

function sequences(events: { id: string | undefined }[]): number[] {
  return events.map((event) => Number(event.id));
}

test('an API replica streams a turn a worker replica runs; a resume elsewhere continues without loss or repeat', async () => {
  const chatId = await newChat(api);
  const response = await send(api, chatId, 'How long do refunds take?');
  assert.equal(response.status, 200);
  // Read a few packets here, then drop the connection and resume on the other API replica.
  const head = await readSse(response, (_event, index) => (index === 3 ? false : undefined));
  const last = Number(head.at(-1)?.id);
  const resumed = await fetch(`${otherApi.http.url}/v1/chats/${chatId}/turns/0/stream`, {
    headers: { 'last-event-id': String(last) },
  });
  const tail = await readSse(resumed);
  const seen = [...sequences(head), ...sequences(tail)];
  const stored = await api.storage.chats.listPackets({ chatId, turn: 0 });
  assert.deepEqual(
    seen,
    stored.map((packet) => packet.sequence),
    'every stored packet once, in order',
  );
  assert.deepEqual(
    seen,
    Array.from({ length: seen.length }, (_, index) => index + 1),
  );
  const kinds = [...head, ...tail].map(
    (event) => (JSON.parse(event.data) as { obj: { type: string } }).obj.type,
  );
  assert.ok(kinds.includes('tool-start'), 'the turn called the tool');
  assert.equal(kinds.at(-1), 'stop');
  const record = await api.storage.chats.getTurn({ chatId, turn: 0 });
  assert.equal(record?.status, 'completed');
  assert.equal(api.server.turns.running + otherApi.server.turns.running, 0, 'the API replicas ran nothing');
  const messages = await api.storage.chats.listMessages(chatId);
  assert.deepEqual(
    messages.map((stored) => stored.message.role),
    ['user', 'assistant', 'tool', 'assistant'],
  );
});

test('a stop sent to one API replica stops the turn on the worker; the partial answer is kept', async () => {
  const chatId = await newChat(api);
  const started = await send(api, chatId, 'Stop me', 'none');
  assert.equal(started.status, 202);
  await eventually(async () =>
    (await api.storage.chats.listPackets({ chatId, turn: 0 })).length > 0 ? true : undefined,
  );
  const stop = await fetch(`${otherApi.http.url}/v1/chats/${chatId}/turns/0/stop`, { method: 'POST' });
  assert.deepEqual(await stop.json(), { stopped: true });
  const record = await api.storage.chats.getTurn({ chatId, turn: 0 });
  assert.equal(record?.status, 'stopped');
  const events = await readSse(await fetch(`${api.http.url}/v1/chats/${chatId}/turns/0/stream`));
  const lastPacket = JSON.parse(events.at(-1)?.data ?? '{}') as { obj: { type: string; reason?: string } };
  assert.deepEqual(lastPacket.obj, { type: 'stop', reason: 'user-cancelled' });
  const again = await fetch(`${api.http.url}/v1/chats/${chatId}/turns/0/stop`, { method: 'POST' });
  assert.deepEqual(await again.json(), { stopped: false });
});

test("one user's concurrent-turn limit holds across API replicas", async () => {
  const chats = await Promise.all([newChat(api), newChat(api), newChat(api)]);
  const first = await send(api, chats[0] as string, 'one', 'none');
  const second = await send(otherApi, chats[1] as string, 'two', 'none');
  const third = await send(api, chats[2] as string, 'three', 'none');
  assert.deepEqual([first.status, second.status, third.status], [202, 202, 429]);
  assert.equal(third.headers.get('retry-after'), '5');
  // The turns end, their slots are freed: the third chat can start now.
  for (const chatId of chats.slice(0, 2)) {
    await eventually(async () => {
      const record = await api.storage.chats.getTurn({ chatId, turn: 0 });
      return record?.status === 'completed' ? true : undefined;
    });
  }
  const retried = await send(otherApi, chats[2] as string, 'three', 'none');
  assert.equal(retried.status, 202);
  await eventually(async () => {
    const record = await api.storage.chats.getTurn({ chatId: chats[2] as string, turn: 0 });
    return record?.status === 'completed' ? true : undefined;
  });
});

test("a worker replica starting while another runs a turn leaves that turn alone: it completes, not 'interrupted'", async () => {
  const chatId = await newChat(api);
  const started = await send(api, chatId, longQuestion, 'none');
  assert.equal(started.status, 202);
  // The tool ran: the turn is mid-answer on the running worker, recorded as running in the shared storage.
  await eventually(async () =>
    (await api.storage.chats.listPackets({ chatId, turn: 0 })).some(
      (packet) => (packet.packet as { obj: { type: string } }).obj.type === 'section-end',
    )
      ? true
      : undefined,
  );
  const joined = await startReplica(true);
  // On one machine a starting server closes every running turn as left over; a replica must not.
  assert.equal((await joined.storage.chats.getTurn({ chatId, turn: 0 }))?.status, 'running');
  const record = await eventually(async () => {
    const turn = await api.storage.chats.getTurn({ chatId, turn: 0 });
    return turn?.status === 'running' ? undefined : turn;
  });
  assert.equal(record.status, 'completed');
  const events = await readSse(await fetch(`${api.http.url}/v1/chats/${chatId}/turns/0/stream`));
  const lastPacket = JSON.parse(events.at(-1)?.data ?? '{}') as { obj: { type: string; reason?: string } };
  assert.equal(lastPacket.obj.type, 'stop');
  assert.notEqual(lastPacket.obj.reason, 'interrupted');
});

// Redis goes away for a few seconds while turns stream, then comes back (restarted with its data, or empty after a
// crash). Storage is the record and Redis a cache: the turn goes on and ends with its `stop`, every stored packet
// is served (from storage while Redis lacks it), a resume of the ended turn reaches its end, and nothing a client
// sees is the Redis client's wording. Replicas in one process on one Redis and one storage file.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type ScriptedModelServer, startScriptedModelServer } from '@toolbus/core/testing';
import { createServer, type ListeningServer, listen, type ScaleOutBackend } from '@toolbus/server';
import { openStorage, type Storage } from '@toolbus/storage';
import {
  eventually,
  lookupThenAnswer,
  lookupToolFactories,
  openTestStorage,
  readSse,
  type SseEvent,
} from '../../server/src/__fixtures__/test-server.ts';
import { createRedisScaleOut } from './create-redis-scale-out.ts';
import { startRedisServer, type TestRedisServer } from './testing/index.ts';

interface Replica {
  readonly storage: Storage;
  readonly backend: ScaleOutBackend;
  readonly http: ListeningServer;
}

let redis: TestRedisServer;
let model: ScriptedModelServer;
let databasePath: string;
const replicas: Replica[] = [];
let api: Replica;
let worker: Replica;
/** What the replicas' Redis connections reported (the test checks none of it reached a client). */
const backgroundErrors: string[] = [];

// About 5 s of answer after the tool call: an outage of 3 s falls inside it.
const longAnswer = 'Refunds take fourteen days after the return arrives at our warehouse. '.repeat(4);

async function startReplica(isWorker: boolean): Promise<Replica> {
  const storage = await openStorage({ path: databasePath, secretKey: Buffer.alloc(32, 3), environment: {} });
  const backend = await createRedisScaleOut({
    url: redis.url,
    worker: isWorker,
    queue: { enqueueTimeoutMs: 2_000 },
    onError: (event) => backgroundErrors.push(event),
  });
  const server = await createServer({
    storage,
    auth: 'local',
    defaultModel: `openai-compatible:${model.url}/v1#scripted`,
    builtInToolFactories: () => lookupToolFactories(),
    heartbeatMs: 200,
    scaleOut: backend,
  });
  const http = await listen(server, { port: 0 });
  const replica = { storage, backend, http };
  replicas.push(replica);
  return replica;
}

before(async () => {
  redis = await startRedisServer();
  const answer = lookupThenAnswer({ answer: longAnswer, chunkDelayMs: 110 });
  model = await startScriptedModelServer({ handler: (request) => answer(request) });
  const seeded = await openTestStorage();
  databasePath = seeded.path;
  await seeded.storage.close();
  api = await startReplica(false);
  worker = await startReplica(true);
});
after(async () => {
  for (const replica of replicas.reverse()) {
    await replica.http.close();
    await replica.backend.close();
    await replica.storage.close();
  }
  await model.close();
  await redis.stop();
});

async function newChat(): Promise<string> {
  const response = await fetch(`${api.http.url}/v1/chats`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  return ((await response.json()) as { id: string }).id;
}

function send(chatId: string, content: string): Promise<Response> {
  return fetch(`${api.http.url}/v1/chats/${chatId}/messages?stream=sse`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ content }),
  });
}

function stream(replica: Replica, chatId: string, turn: number, lastEventId?: number): Promise<Response> {
  return fetch(`${replica.http.url}/v1/chats/${chatId}/turns/${turn}/stream`, {
    headers: lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) },
  });
}

function typeOf(event: SseEvent): string {
  return (JSON.parse(event.data) as { obj: { type: string } }).obj.type;
}

/**
 * The rules every turn keeps through an outage: it completed, its stored packets run 1..n with one `stop`, the
 * last; each stream seen is exactly the stored packets, with no error event; a resume from the middle of the
 * ended turn returns its end, and a resume at its end tells an EventSource that nothing more will come.
 */
async function assertWholeTurn(chatId: string, turn: number, seen: readonly SseEvent[][]): Promise<void> {
  const record = await api.storage.chats.getTurn({ chatId, turn });
  assert.equal(record?.status, 'completed', `turn ${turn}: ${record?.status} (${record?.endReason})`);
  const stored = await api.storage.chats.listPackets({ chatId, turn });
  assert.deepEqual(
    stored.map((packet) => packet.sequence),
    stored.map((_packet, index) => index + 1),
  );
  const types = stored.map((packet) => (packet.packet as { obj: { type: string } }).obj.type);
  assert.equal(types.filter((type) => type === 'stop').length, 1, 'one stop');
  assert.equal(types.at(-1), 'stop');
  for (const events of seen) {
    assert.deepEqual(
      events.filter((event) => event.event === 'error').map((event) => event.data),
      [],
    );
    assert.deepEqual(
      events.map((event) => Number(event.id)),
      stored.map((packet) => packet.sequence),
      'a stream serves every stored packet once, in order',
    );
  }
  const middle = Math.floor(stored.length / 2);
  for (const replica of [api, worker]) {
    const rest = await readSse(await stream(replica, chatId, turn, middle));
    assert.deepEqual(
      rest.map((event) => Number(event.id)),
      stored.slice(middle).map((packet) => packet.sequence),
    );
    assert.equal(typeOf(rest.at(-1) as SseEvent), 'stop');
    const atEnd = await stream(replica, chatId, turn, stored.length);
    assert.equal(atEnd.status, 204, 'an EventSource resuming at the end is told to stop reconnecting');
  }
}

/** Starts a turn through the API replica and follows it there and on the worker, taking Redis away meanwhile. */
async function turnThroughOutage(
  chatId: string,
  outage: () => Promise<void>,
): Promise<{ seen: SseEvent[][]; outage: Promise<void> }> {
  const started = await send(chatId, 'How long do refunds take?');
  assert.equal(started.status, 200);
  let down: Promise<void> | undefined;
  const onApi = readSse(started, (event) => {
    if (down === undefined && typeOf(event) === 'tool-start') down = outage();
  });
  const onWorker = readSse(await stream(worker, chatId, 0));
  const seen = await Promise.all([onApi, onWorker]);
  assert.ok(down, 'the outage began mid-turn');
  return { seen, outage: down };
}

test('Redis restarted with its data mid-turn: the turn completes, every packet is served once, resumes reach the end', async () => {
  const chatId = await newChat();
  const { seen, outage } = await turnThroughOutage(chatId, () =>
    redis.restart({ downMs: 3_000, keepData: true }),
  );
  await outage;
  await assertWholeTurn(chatId, 0, seen);
  const next = await readSse(await send(chatId, 'And exchanges?'));
  await assertWholeTurn(chatId, 1, [next]);
});

test('Redis lost everything mid-turn (a crash): storage serves what Redis lacks; a turn ending while Redis is away is closed with its stop', async () => {
  const chatId = await newChat();
  let closedWhileAway = false;
  const { seen, outage } = await turnThroughOutage(chatId, async () => {
    const restarting = redis.restart({ downMs: 7_000, keepData: false });
    // The turn ends during the outage: its end and stop are in storage before Redis is back.
    const ended = await eventually(async () => {
      const record = await api.storage.chats.getTurn({ chatId, turn: 0 });
      return record?.status === 'running' ? undefined : record;
    }, 20_000);
    assert.equal(ended.status, 'completed');
    const stored = await api.storage.chats.listPackets({ chatId, turn: 0 });
    assert.equal((stored.at(-1)?.packet as { obj?: { type: string } } | undefined)?.obj?.type, 'stop');
    closedWhileAway = redis.process.exitCode !== null || redis.process.signalCode !== null;
    await restarting;
  });
  await outage;
  assert.ok(closedWhileAway, 'the turn ended while Redis was down');
  await assertWholeTurn(chatId, 0, seen);
  const next = await readSse(await send(chatId, 'And exchanges?'));
  await assertWholeTurn(chatId, 1, [next]);
});

// A deployment for outage tests: an API replica and a worker replica in one process, on one Redis and one
// storage, with a scripted model that looks a fact up and then answers slowly (an outage falls inside the answer).
import assert from 'node:assert/strict';
import { type ScriptedModelServer, startScriptedModelServer } from '@toolbus/core/testing';
import { createServer, type ListeningServer, listen, type ScaleOutBackend, type ServerOptions } from '@toolbus/server';
import type { Storage } from '@toolbus/storage';
import {
  lookupThenAnswer,
  lookupToolFactories,
  readSse,
  type SseEvent,
} from '../../../server/src/__fixtures__/test-server.ts';
import { createRedisScaleOut } from '../create-redis-scale-out.ts';

export interface Replica {
  readonly storage: Storage;
  readonly backend: ScaleOutBackend;
  readonly http: ListeningServer;
}

/** What an outage test drives. */
export interface OutageDeployment {
  readonly api: Replica;
  readonly worker: Replica;
  readonly model: ScriptedModelServer;
  newChat(): Promise<string>;
  /** Sends a message through the API replica, streaming its turn (SSE). */
  send(chatId: string, content: string): Promise<Response>;
  /** A turn's stream on a replica, resumed after `lastEventId` when given. */
  stream(replica: Replica, chatId: string, turn: number, lastEventId?: number): Promise<Response>;
  close(): Promise<void>;
}

// About 5 s of answer after the tool call.
const longAnswer = 'Refunds take fourteen days after the return arrives at our warehouse. '.repeat(4);

export async function startOutageDeployment(options: {
  readonly redisUrl: string;
  /** Opens the replica's storage (each replica its own connection to the one database). */
  readonly openStorage: () => Promise<Storage>;
  readonly server?: Pick<ServerOptions, 'storageRetry'>;
}): Promise<OutageDeployment> {
  const answer = lookupThenAnswer({ answer: longAnswer, chunkDelayMs: 110 });
  const model = await startScriptedModelServer({ handler: (request) => answer(request) });
  const replicas: Replica[] = [];
  const startReplica = async (worker: boolean): Promise<Replica> => {
    const storage = await options.openStorage();
    // The queue keeps its default enqueue timeout (10 s): a message sent right after Redis is back waits for the
    // client's reconnect (ioredis backs off up to 2 s), as it would in production.
    const backend = await createRedisScaleOut({ url: options.redisUrl, worker });
    const server = await createServer({
      storage,
      auth: 'local',
      defaultModel: `openai-compatible:${model.url}/v1#scripted`,
      builtInToolFactories: () => lookupToolFactories(),
      heartbeatMs: 200,
      scaleOut: backend,
      ...options.server,
    });
    const replica = { storage, backend, http: await listen(server, { port: 0 }) };
    replicas.push(replica);
    return replica;
  };
  const api = await startReplica(false);
  const worker = await startReplica(true);
  return {
    api,
    worker,
    model,
    async newChat() {
      const response = await fetch(`${api.http.url}/v1/chats`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      return ((await response.json()) as { id: string }).id;
    },
    send(chatId, content) {
      return fetch(`${api.http.url}/v1/chats/${chatId}/messages?stream=sse`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content }),
      });
    },
    stream(replica, chatId, turn, lastEventId) {
      return fetch(`${replica.http.url}/v1/chats/${chatId}/turns/${turn}/stream`, {
        headers: lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) },
      });
    },
    async close() {
      for (const replica of replicas.reverse()) {
        await replica.http.close();
        await replica.backend.close();
        await replica.storage.close();
      }
      await model.close();
    },
  };
}

export function typeOf(event: SseEvent): string {
  return (JSON.parse(event.data) as { obj: { type: string } }).obj.type;
}

/**
 * Starts a turn through the API replica and follows it there and on the worker; `outage` starts once the turn
 * called its tool (mid-turn). Resolves with what both streams saw, and the outage.
 */
export async function turnThroughOutage(
  deployment: OutageDeployment,
  chatId: string,
  outage: () => Promise<void>,
): Promise<{ seen: SseEvent[][]; outage: Promise<void> }> {
  const started = await deployment.send(chatId, 'How long do refunds take?');
  assert.equal(started.status, 200);
  // Both streams are open before the outage (opening one needs the database).
  const onWorker = readSse(await deployment.stream(deployment.worker, chatId, 0));
  let down: Promise<void> | undefined;
  const onApi = readSse(started, (event) => {
    if (down === undefined && typeOf(event) === 'tool-start') down = outage();
  });
  const seen = await Promise.all([onApi, onWorker]);
  assert.ok(down, 'the outage began mid-turn');
  return { seen, outage: down };
}

/**
 * The rules every turn keeps through an outage: it ended as `status`, its stored packets run 1..n with one
 * `stop`, the last; each stream seen is exactly the stored packets (no error event); a resume from the middle of
 * the ended turn returns its end on either replica, and a resume at its end tells an EventSource to stop (204).
 */
export async function assertWholeTurn(
  deployment: OutageDeployment,
  chatId: string,
  turn: number,
  seen: readonly SseEvent[][],
  status: 'completed' | 'failed' = 'completed',
): Promise<void> {
  const { api, worker } = deployment;
  const record = await api.storage.chats.getTurn({ chatId, turn });
  assert.equal(record?.status, status, `turn ${turn}: ${record?.status} (${record?.endReason})`);
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
    const rest = await readSse(await deployment.stream(replica, chatId, turn, middle));
    assert.deepEqual(
      rest.map((event) => Number(event.id)),
      stored.slice(middle).map((packet) => packet.sequence),
    );
    assert.equal(typeOf(rest.at(-1) as SseEvent), 'stop');
    const atEnd = await deployment.stream(replica, chatId, turn, stored.length);
    assert.equal(atEnd.status, 204, 'an EventSource resuming at the end is told to stop reconnecting');
  }
}

/**
 * A turn of a new chat through an outage the deployment recovers from (`outage` starts mid-turn): the turn is
 * whole, and the chat's next turn, asked once the outage is over, is whole too.
 */
export async function assertTurnSurvives(
  deployment: OutageDeployment,
  outage: () => Promise<void>,
): Promise<void> {
  const chatId = await deployment.newChat();
  const { seen, outage: down } = await turnThroughOutage(deployment, chatId, outage);
  await down;
  await assertWholeTurn(deployment, chatId, 0, seen);
  const next = await readSse(await deployment.send(chatId, 'And exchanges?'));
  await assertWholeTurn(deployment, chatId, 1, [next]);
}

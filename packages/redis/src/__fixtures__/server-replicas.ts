// Server replicas in one process, sharing one Redis and one storage file: what every scale-out test starts. Each
// replica has its own storage connection, its own Redis scale-out backend and its own loopback listener, as a
// separate `toolbus serve` process would.
import assert from 'node:assert/strict';
import { type ScriptedModelServer, startScriptedModelServer } from '@toolbus/core/testing';
import {
  createServer,
  type ListeningServer,
  listen,
  type ScaleOutBackend,
  type ServerOptions,
  type ToolbusServer,
} from '@toolbus/server';
import { openStorage, type Storage } from '@toolbus/storage';
import { lookupThenAnswer, openTestStorage } from '../../../server/src/__fixtures__/test-server.ts';
import { createRedisScaleOut, type RedisScaleOutOptions } from '../create-redis-scale-out.ts';

export interface Replica {
  readonly storage: Storage;
  readonly backend: ScaleOutBackend;
  readonly server: ToolbusServer;
  readonly http: ListeningServer;
}

/** How one replica is started: its scale-out backend's options and its server's (given its own storage). */
export interface ReplicaOptions {
  readonly scaleOut: Omit<RedisScaleOutOptions, 'url'> & { readonly url?: string };
  readonly server: (storage: Storage) => Omit<ServerOptions, 'storage' | 'scaleOut'>;
}

export interface ServerReplicas {
  /** The one database file every replica opens. */
  readonly databasePath: string;
  /** The replicas started and not stopped, in start order. */
  readonly running: readonly Replica[];
  start(options: ReplicaOptions): Promise<Replica>;
  stop(replica: Replica): Promise<void>;
  /** Stops every running replica, the last started first. */
  close(): Promise<void>;
}

/** The storage key every test database here is written with (`openTestStorage`'s). */
export const replicaStorageKey = Buffer.alloc(32, 3);

/** Another connection to the test database at `path`, as another process would open it. */
export function openReplicaStorage(path: string): Promise<Storage> {
  return openStorage({ path, secretKey: replicaStorageKey, environment: {} });
}

/**
 * Replicas on a fresh test database (`openTestStorage`'s: a `default` persona with the lookup tool), which `seed`
 * may add to before any replica starts.
 */
export async function serverReplicas(options: {
  readonly redisUrl: string;
  readonly seed?: (storage: Storage) => Promise<void>;
}): Promise<ServerReplicas> {
  const seeded = await openTestStorage();
  try {
    await options.seed?.(seeded.storage);
  } finally {
    await seeded.storage.close();
  }
  const databasePath = seeded.path;
  const running: Replica[] = [];
  const stop = async (replica: Replica): Promise<void> => {
    running.splice(running.indexOf(replica), 1);
    await replica.http.close();
    await replica.server.close();
    await replica.backend.close();
    await replica.storage.close();
  };
  return {
    databasePath,
    running,
    start: async (replicaOptions) => {
      const storage = await openReplicaStorage(databasePath);
      const backend = await createRedisScaleOut({ url: options.redisUrl, ...replicaOptions.scaleOut });
      const server = await createServer({ ...replicaOptions.server(storage), storage, scaleOut: backend });
      const replica = { storage, backend, server, http: await listen(server, { port: 0 }) };
      running.push(replica);
      return replica;
    },
    stop,
    close: async () => {
      for (const replica of [...running].reverse()) await stop(replica);
    },
  };
}

/** A replica's role in a scale-out deployment: an API replica runs no turns; a worker runs the queued ones. */
export type ReplicaRole = 'api' | 'worker';

/**
 * The deployment most approval and elicitation tests need: an API replica, then a worker (`start` gives each its
 * server options), and the key of the first admin, minted on the API replica.
 */
export async function startApiAndWorker(
  start: (role: ReplicaRole) => Promise<Replica>,
): Promise<{ api: Replica; worker: Replica; adminKey: string }> {
  const api = await start('api');
  const worker = await start('worker');
  const bootstrap = await api.server.access.bootstrapAdmin('admin@example.com');
  assert.ok(bootstrap, 'the first admin of a fresh deployment is bootstrapped');
  return { api, worker, adminKey: bootstrap.key };
}

/** `count` API replicas (none runs turns), started one after another with the same server options. */
export async function startApiReplicas(
  replicas: ServerReplicas,
  count: number,
  server: ReplicaOptions['server'],
): Promise<Replica[]> {
  const started: Replica[] = [];
  for (let index = 0; index < count; index += 1) {
    started.push(await replicas.start({ scaleOut: { worker: false }, server }));
  }
  return started;
}

/** Creates a chat through a replica (local auth: no key), returning its id. */
export async function newChat(replica: Replica): Promise<string> {
  const response = await fetch(`${replica.http.url}/v1/chats`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  assert.equal(response.status, 201);
  return ((await response.json()) as { id: string }).id;
}

/** Sends a message through a replica, its turn streamed (`sse`) or only queued (`none`). */
export function send(replica: Replica, chatId: string, content: string, stream: 'sse' | 'none' = 'sse') {
  return fetch(`${replica.http.url}/v1/chats/${chatId}/messages?stream=${stream}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ content }),
  });
}

/** The question whose answer {@link startLookupModel}'s model gives slowly. */
export const longQuestion = 'Take your time';

/**
 * The scripted model of the replica tests: it looks a fact up and answers; the answer to {@link longQuestion}
 * takes about 4 s longer (time for replicas to start, stop or sweep meanwhile).
 */
export function startLookupModel(options: { readonly chunkDelayMs: number }): Promise<ScriptedModelServer> {
  const answer = lookupThenAnswer({ chunkDelayMs: options.chunkDelayMs });
  return startScriptedModelServer({
    handler: (request) => {
      const steps = answer(request);
      const long = request.messages.some(
        (message) => message.role === 'user' && message.text === longQuestion,
      );
      return long && request.messages.at(-1)?.role === 'tool'
        ? [...Array.from({ length: 20 }, () => ({ type: 'delay' as const, ms: 200 })), ...steps]
        : steps;
    },
  });
}

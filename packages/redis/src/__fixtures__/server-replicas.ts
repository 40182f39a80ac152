// Server replicas in one process, sharing one Redis and one storage file: what every scale-out test starts. Each
// replica has its own storage connection, its own Redis scale-out backend and its own loopback listener, as a
// separate `toolbus serve` process would.
import {
  createServer,
  type ListeningServer,
  listen,
  type ScaleOutBackend,
  type ServerOptions,
  type ToolbusServer,
} from '@toolbus/server';
import { openStorage, type Storage } from '@toolbus/storage';
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

export function serverReplicas(options: { readonly databasePath: string; readonly redisUrl: string }): ServerReplicas {
  const running: Replica[] = [];
  const stop = async (replica: Replica): Promise<void> => {
    running.splice(running.indexOf(replica), 1);
    await replica.http.close();
    await replica.server.close();
    await replica.backend.close();
    await replica.storage.close();
  };
  return {
    running,
    start: async (replicaOptions) => {
      const storage = await openReplicaStorage(options.databasePath);
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

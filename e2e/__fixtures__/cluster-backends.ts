// What every replica-cluster test runs on: PostgreSQL and Redis from Debian, started here, with one fresh database
// the replicas share. And the read of a cluster's JSON answer, which must be a success.
import assert from 'node:assert/strict';
import { startRedisServer, type TestRedisServer } from '@toolbus/redis/testing';
import { startTestPostgres, type TestPostgres } from '@toolbus/storage-postgres/testing';

/** The running PostgreSQL and Redis (a test may restart either), the database's URL, and a stop for both. */
export interface ClusterBackends {
  readonly postgres: TestPostgres;
  readonly redis: TestRedisServer;
  /** TOOLBUS_STORAGE_URL for every replica: one database for all of them, as in a deployment. */
  readonly storageUrl: string;
  stop(): Promise<void>;
}

/** Starts PostgreSQL and Redis side by side and creates the cluster's database. */
export async function startClusterBackends(): Promise<ClusterBackends> {
  const [postgres, redis] = await Promise.all([startTestPostgres(), startRedisServer()]);
  return {
    postgres,
    redis,
    storageUrl: await postgres.createDatabase(),
    async stop() {
      await redis.stop();
      await postgres.stop();
    },
  };
}

/** The body of a successful answer as `T`; a failed one fails the test with its status and body. */
export async function okJson<T>(response: Response): Promise<T> {
  assert.ok(response.ok, `${response.status} ${await response.clone().text()}`);
  return (await response.json()) as T;
}

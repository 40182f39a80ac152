// What every replica-cluster test runs on: PostgreSQL and Redis from Debian, started here, with one fresh database
// the replicas share. And the read of a cluster's JSON answer, which must be a success.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startRedisServer, type TestRedisServer } from '@toolbus/redis/testing';
import { startTestPostgres, type TestPostgres } from '@toolbus/storage-postgres/testing';

/** The running PostgreSQL and Redis (a test may restart either), the database's URL, and a stop for both. */
export interface ClusterBackends {
  readonly postgres: TestPostgres;
  readonly redis: TestRedisServer;
  /** TOOLBUS_STORAGE_URL for every replica: one database for all of them, as in a deployment. */
  readonly storageUrl: string;
  /** The key every replica seals secrets with (base64), shared as in a deployment. */
  readonly secretKey: string;
  /** What every replica's environment holds: the one database's URL and the one secret key. */
  readonly environment: { readonly TOOLBUS_STORAGE_URL: string; readonly TOOLBUS_SECRET_KEY: string };
  stop(): Promise<void>;
}

/** Starts PostgreSQL and Redis side by side, creates the cluster's database and draws its secret key. */
export async function startClusterBackends(): Promise<ClusterBackends> {
  const [postgres, redis] = await Promise.all([startTestPostgres(), startRedisServer()]);
  const storageUrl = await postgres.createDatabase();
  const secretKey = randomBytes(32).toString('base64');
  return {
    postgres,
    redis,
    storageUrl,
    secretKey,
    environment: { TOOLBUS_STORAGE_URL: storageUrl, TOOLBUS_SECRET_KEY: secretKey },
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

// How the schema tests (fresh-schema.test.ts, upgrade-from-release.test.ts) and make-schema-reference.ts open a
// database with today's storage and describe its schema (testing/schema-of.ts), on SQLite and PostgreSQL alike.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { openStorage, type Storage } from '@toolbus/storage';
import { openPostgresStorage } from '../open-postgres-storage.ts';
import { postgresSchemaOf, sqliteSchemaOf } from '../testing/schema-of.ts';
import { startTestPostgres, type TestPostgres } from '../testing/start-test-postgres.ts';

/** Storage on the SQLite file at `path` (created and migrated, or migrated), sealed with `secretKey`. */
export const openSqlite = (path: string, secretKey: string): Promise<Storage> =>
  openStorage({ path, secretKey, environment: {} });

/** Storage on the PostgreSQL database at `url` (created and migrated, or migrated), sealed with `secretKey`. */
export const openPostgres = (url: string, secretKey: string): Promise<Storage> =>
  openPostgresStorage({ url, secretKey, environment: {} });

/** A PostgreSQL database's schema as JSON data (as the reference file holds it). */
export const postgresSchemaAsJson = async (url: string): Promise<unknown> =>
  JSON.parse(JSON.stringify(await postgresSchemaOf(url)));

/** The schema storage gives a new SQLite file at `path`. */
export async function freshSqliteSchema(path: string, secretKey: string): Promise<unknown> {
  await (await openSqlite(path, secretKey)).close();
  return sqliteSchemaOf(path);
}

/** The schema storage gives a new database of `cluster`. */
export async function freshPostgresSchema(cluster: TestPostgres, secretKey: string): Promise<unknown> {
  const url = await cluster.createDatabase();
  await (await openPostgres(url, secretKey)).close();
  return postgresSchemaAsJson(url);
}

/**
 * A test file's PostgreSQL cluster and temporary directory: started before its tests, stopped and removed after.
 */
export function schemaTestDatabases(prefix: string): {
  cluster(): TestPostgres;
  /** A path in the temporary directory. */
  file(name: string): string;
} {
  const root = mkdtempSync(join(tmpdir(), `toolbus-${prefix}-`));
  let cluster: TestPostgres | undefined;
  before(async () => {
    cluster = await startTestPostgres();
  });
  after(async () => {
    await cluster?.stop();
    rmSync(root, { recursive: true, force: true });
  });
  return {
    cluster: () => {
      if (cluster === undefined) throw new Error('The cluster starts before the tests.');
      return cluster;
    },
    file: (name) => join(root, name),
  };
}

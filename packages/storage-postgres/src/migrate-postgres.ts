import { type Migration, StorageError } from '@toolbus/storage';
import type pg from 'pg';
import { inTransaction, type Queryable } from './postgres-context.ts';

/** Where a migration list records its applied versions: storage's list and the search index's are separate. */
export type MigrationTable = 'schema_migrations' | 'search_index_migrations';

// Fixed numbers: every toolbus process migrating the same list takes the same lock.
const migrationLockKeys: Readonly<Record<MigrationTable, number>> = {
  schema_migrations: 7_320_119,
  search_index_migrations: 7_320_120,
};

/**
 * Brings the database to the newest version in `migrations`, in one transaction under an advisory lock, so
 * replicas starting at the same time migrate once and the others wait and then find nothing to do. A database
 * whose version is newer than any known step is refused (an older toolbus must not write to it).
 */
export async function migratePostgres(
  pool: pg.Pool,
  migrations: readonly Migration[],
  table: MigrationTable = 'schema_migrations',
): Promise<readonly number[]> {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(
        `Migration list out of order: position ${index + 1} holds version ${migration.version}.`,
      );
    }
  });
  return inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [migrationLockKeys[table]]);
    // The table name is one of two constants, never input.
    await client.query(`CREATE TABLE IF NOT EXISTS ${table} (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL
    )`);
    const fromVersion = await postgresSchemaVersion(client, table);
    const latest = migrations.at(-1)?.version ?? 0;
    if (fromVersion > latest) {
      throw new StorageError({
        code: 'schema_too_new',
        message: `The database has schema version ${fromVersion}, newer than this toolbus knows (${latest}). Upgrade toolbus; do not open it with an older version.`,
      });
    }
    const applied: number[] = [];
    for (const migration of migrations) {
      if (migration.version <= fromVersion) continue;
      await client.query(migration.sql);
      await client.query(`INSERT INTO ${table} (version, name, applied_at) VALUES ($1, $2, $3)`, [
        migration.version,
        migration.name,
        new Date().toISOString(),
      ]);
      applied.push(migration.version);
    }
    return applied;
  });
}

/** The highest applied migration version (0 for an empty database). */
export async function postgresSchemaVersion(
  client: Queryable,
  table: MigrationTable = 'schema_migrations',
): Promise<number> {
  const { rows } = await client.query<{ version: number | null }>(
    `SELECT MAX(version) AS version FROM ${table}`,
  );
  return rows[0]?.version ?? 0;
}

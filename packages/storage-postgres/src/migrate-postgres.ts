import { type Migration, StorageError } from '@toolbus/storage';
import type { PostgresContext, Queryable } from './postgres-context.ts';

// Any fixed number: every toolbus process migrating this database takes the same lock.
const migrationLockKey = 7_320_119;

/**
 * Brings the database to the newest version in `migrations`, in one transaction under an advisory lock, so
 * replicas starting at the same time migrate once and the others wait and then find nothing to do. A database
 * whose version is newer than any known step is refused (an older toolbus must not write to it).
 */
export async function migratePostgres(
  context: PostgresContext,
  migrations: readonly Migration[],
): Promise<readonly number[]> {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(
        `Migration list out of order: position ${index + 1} holds version ${migration.version}.`,
      );
    }
  });
  return context.transaction(async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [migrationLockKey]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL
    )`);
    const fromVersion = await postgresSchemaVersion(client);
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
      await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        context.now(),
      ]);
      applied.push(migration.version);
    }
    return applied;
  });
}

/** The highest applied migration version (0 for an empty database). */
export async function postgresSchemaVersion(client: Queryable): Promise<number> {
  const { rows } = await client.query<{ version: number | null }>(
    'SELECT MAX(version) AS version FROM schema_migrations',
  );
  return rows[0]?.version ?? 0;
}

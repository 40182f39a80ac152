import type { DatabaseSync } from 'node:sqlite';
import { StorageError } from '../storage-error.ts';
import type { Migration } from './migration.ts';

/** What {@link migrate} did. */
export interface MigrationOutcome {
  readonly fromVersion: number;
  readonly toVersion: number;
  readonly applied: readonly number[];
}

/**
 * Brings the database to the newest version in `migrations`: each pending step runs in its own transaction
 * together with its `schema_migrations` row, so a failed step leaves the previous version intact. Re-running is a
 * no-op. A database whose version is newer than any known step is refused (an older toolbus must not write to it).
 */
export function migrate(database: DatabaseSync, migrations: readonly Migration[]): MigrationOutcome {
  checkOrder(migrations);
  database.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
  )`);
  const fromVersion = currentSchemaVersion(database);
  const latest = migrations.at(-1)?.version ?? 0;
  if (fromVersion > latest) {
    throw new StorageError({
      code: 'schema_too_new',
      message: `The database has schema version ${fromVersion}, newer than this toolbus knows (${latest}). Upgrade toolbus; do not open it with an older version.`,
    });
  }
  const applied: number[] = [];
  const record = database.prepare(
    'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
  );
  for (const migration of migrations) {
    if (migration.version <= fromVersion) continue;
    database.exec('BEGIN IMMEDIATE');
    try {
      database.exec(migration.sql);
      record.run(migration.version, migration.name, new Date().toISOString());
      database.exec('COMMIT');
    } catch (error) {
      database.exec('ROLLBACK');
      throw error;
    }
    applied.push(migration.version);
  }
  return { fromVersion, toVersion: Math.max(fromVersion, latest), applied };
}

/** The highest applied migration version (0 for an empty database). */
export function currentSchemaVersion(database: DatabaseSync): number {
  const row = database.prepare('SELECT MAX(version) AS version FROM schema_migrations').get() as
    | { version: number | null }
    | undefined;
  return row?.version ?? 0;
}

function checkOrder(migrations: readonly Migration[]): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(
        `Migration list out of order: position ${index + 1} holds version ${migration.version}.`,
      );
    }
  });
}

import { type Kysely, sql, type Transaction } from 'kysely';
import { StorageError } from '../storage-error.ts';
import { type Migration, postgresLegacyFirstName, postgresLegacyVersions } from './migrations.ts';
import type { StorageSchema } from './storage-schema.ts';
import type { StorageDialect } from './store-context.ts';

/** Where a migration list records its applied versions: storage's list and the search index's are separate. */
export type MigrationTable = 'schema_migrations' | 'search_index_migrations';

// Fixed numbers: every toolbus process migrating the same list on one PostgreSQL database takes the same lock.
const migrationLockKeys: Readonly<Record<MigrationTable, number>> = {
  schema_migrations: 7_320_119,
  search_index_migrations: 7_320_120,
};

/** What {@link migrate} needs of a database. */
export interface MigrationTarget {
  readonly db: Kysely<StorageSchema>;
  readonly dialect: StorageDialect;
  /** Runs a script of several statements in the transaction (node:sqlite prepares one statement at a time). */
  runScript(trx: Transaction<StorageSchema>, script: string): Promise<void>;
}

/**
 * Brings the database to the newest version in `migrations`, in one transaction (under an advisory lock on
 * PostgreSQL, so replicas starting together migrate once: the others wait, then find nothing to do). A failed
 * step leaves the previous version intact. A database whose version is newer than any known step is refused (an
 * older toolbus must not write to it). Returns the versions applied.
 */
export async function migrate(
  target: MigrationTarget,
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
  const { dialect } = target;
  return target.db.transaction().execute(async (trx) => {
    if (dialect === 'postgres')
      await sql`SELECT pg_advisory_xact_lock(${migrationLockKeys[table]})`.execute(trx);
    // The table name is one of two constants, never input.
    await target.runScript(
      trx,
      `CREATE TABLE IF NOT EXISTS ${table} (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at ${
        dialect === 'postgres' ? 'timestamptz' : 'TEXT'
      } NOT NULL)`,
    );
    if (dialect === 'postgres' && table === 'schema_migrations') await renumberPostgres(trx, migrations);
    const fromVersion = await schemaVersion(trx, table);
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
      const script = typeof migration.sql === 'string' ? migration.sql : migration.sql[dialect];
      if (script.trim() !== '') await target.runScript(trx, script);
      await trx
        .insertInto(table as 'schema_migrations')
        .values({ version: migration.version, name: migration.name, applied_at: new Date().toISOString() })
        .execute();
      applied.push(migration.version);
    }
    return applied;
  });
}

/** The highest applied migration version (0 for an empty database). */
export async function schemaVersion(
  db: Kysely<StorageSchema>,
  table: MigrationTable = 'schema_migrations',
): Promise<number> {
  const row = await db
    .selectFrom(table as 'schema_migrations')
    .select((eb) => eb.fn.max('version').as('version'))
    .executeTakeFirst();
  return Number(row?.version ?? 0);
}

/**
 * A PostgreSQL database of a release before storage was written once recorded its own numbering (1 to 11): the
 * versions it reached are recorded again under the numbering of the one list, once.
 */
async function renumberPostgres(
  trx: Transaction<StorageSchema>,
  migrations: readonly Migration[],
): Promise<void> {
  const first = await trx
    .selectFrom('schema_migrations')
    .select('name')
    .where('version', '=', 1)
    .executeTakeFirst();
  if (first?.name !== postgresLegacyFirstName) return;
  const reached = postgresLegacyVersions[await schemaVersion(trx)];
  if (reached === undefined) throw new Error('A PostgreSQL schema of an unknown old version.');
  await trx.deleteFrom('schema_migrations').execute();
  const now = new Date().toISOString();
  await trx
    .insertInto('schema_migrations')
    .values(migrations.slice(0, reached).map(({ version, name }) => ({ version, name, applied_at: now })))
    .execute();
}

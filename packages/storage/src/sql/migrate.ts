import { type Kysely, sql, type Transaction } from 'kysely';
import { StorageError } from '../storage-error.ts';
import { type StepWords, stepWords } from './step-words.ts';
import type { StorageSchema } from './storage-schema.ts';
import type { StorageDialect } from './store-context.ts';

/**
 * One schema step, for both databases: its name, and its SQL given the database's words (step-words.ts: the
 * databases' differences are data). A step's version is its position in its list, from 1.
 */
export interface Migration {
  readonly name: string;
  readonly sql: (d: StepWords) => string;
}

/** Where a migration list records its applied versions: storage's, the search index's and the skill registry's. */
export type MigrationTable = 'schema_migrations' | 'search_index_migrations' | 'skill_registry_migrations';

// Fixed numbers: every toolbus process migrating the same list on one PostgreSQL database takes the same lock.
const migrationLockKeys: Readonly<Record<MigrationTable, number>> = {
  schema_migrations: 7_320_119,
  search_index_migrations: 7_320_120,
  skill_registry_migrations: 7_320_121,
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
 * PostgreSQL, so replicas starting together migrate once). A failed step leaves the previous version intact; a
 * version newer than any known step is refused (an older toolbus must not write to it).
 */
export async function migrate(
  target: MigrationTarget,
  migrations: readonly Migration[],
  table: MigrationTable = 'schema_migrations',
  earlierNumbering?: EarlierNumbering,
): Promise<void> {
  const { dialect } = target;
  const words = stepWords[dialect];
  return target.db.transaction().execute(async (trx) => {
    if (dialect === 'postgres')
      await sql`SELECT pg_advisory_xact_lock(${migrationLockKeys[table]})`.execute(trx);
    // The table name is one of MigrationTable's constants, never input.
    await target.runScript(
      trx,
      `CREATE TABLE IF NOT EXISTS ${table} (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at ${words.time} NOT NULL)`,
    );
    const earlier =
      earlierNumbering ??
      (dialect === 'postgres' && table === 'schema_migrations' ? postgresReleasesNumbering : undefined);
    const reached = await earlier?.(trx);
    if (reached !== undefined) await recordReached(trx, table, migrations, reached);
    const fromVersion = await schemaVersion(trx, table);
    const latest = migrations.length;
    if (fromVersion > latest) throw tooNew(fromVersion, latest);
    for (const [index, migration] of migrations.slice(fromVersion).entries()) {
      const script = migration.sql(words);
      if (script.trim() !== '') await target.runScript(trx, script);
      const version = fromVersion + index + 1;
      await trx
        .insertInto(table as 'schema_migrations')
        .values({ version, name: migration.name, applied_at: new Date().toISOString() })
        .execute();
    }
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
 * How an earlier release recorded its steps, where not in this runner's table: the version of the list they reached,
 * or undefined. It may clear the old record (in the migration's transaction, so a refusal keeps it).
 */
export type EarlierNumbering = (trx: Transaction<StorageSchema>) => Promise<number | undefined>;

function tooNew(version: number, latest: number): StorageError {
  return new StorageError({
    code: 'schema_too_new',
    message: `The database has schema version ${version}, newer than this toolbus knows (${latest}). Upgrade toolbus; do not open it with an older version.`,
  });
}

/** Records the versions an earlier numbering reached as this list's, in place of what the table held. */
async function recordReached(
  trx: Transaction<StorageSchema>,
  table: MigrationTable,
  migrations: readonly Migration[],
  reached: number,
): Promise<void> {
  if (reached > migrations.length) throw tooNew(reached, migrations.length);
  await trx.deleteFrom(table as 'schema_migrations').execute();
  if (reached === 0) return;
  const now = new Date().toISOString();
  await trx
    .insertInto(table as 'schema_migrations')
    .values(
      migrations.slice(0, reached).map(({ name }, index) => ({ version: index + 1, name, applied_at: now })),
    )
    .execute();
}

// PostgreSQL's releases before storage was written once numbered their own steps 1 to 11, the first under this
// name: the version of the one list each old version reached (index: the old version).
const postgresLegacyFirstName = 'initial schema: every store of the SQLite schema version 4';
const postgresLegacyVersions: readonly number[] = [0, 4, 5, 6, 7, 8, 12, 13, 14, 15, 16, 17];

/** Storage's steps as PostgreSQL's releases before storage was written once numbered them. */
const postgresReleasesNumbering: EarlierNumbering = async (trx) => {
  const first = await trx
    .selectFrom('schema_migrations')
    .select('name')
    .where('version', '=', 1)
    .executeTakeFirst();
  if (first?.name !== postgresLegacyFirstName) return undefined;
  const reached = postgresLegacyVersions[await schemaVersion(trx)];
  if (reached === undefined) throw new Error('A PostgreSQL schema of an unknown old version.');
  return reached;
};

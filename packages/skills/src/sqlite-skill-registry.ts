import { openDatabaseFile } from '@toolbus/storage';
import { type EarlierNumbering, sqliteMigrationTarget } from '@toolbus/storage/backend';
import { sql } from 'kysely';
import { type OpenedSkillRegistry, openSqlSkillRegistry } from './sql-skill-registry.ts';

/** Options for {@link openSqliteSkillRegistry}. */
export interface SqliteSkillRegistryOptions {
  /**
   * The SQLite file (`:memory:` for a private in-memory one). It may be another store's file, storage's too: the
   * registry opens a connection of its own to it.
   */
  readonly database: string;
}

/**
 * Opens a {@link SkillRegistry} on `node:sqlite`, migrating its file first with storage's migration runner: the
 * registry of sql-skill-registry.ts, written once for both databases. It owns its tables (`toolbus_skills`, and
 * `skill_registry_migrations` recording which of its steps ran), so it can share a database with other toolbus
 * stores. Fails closed on a file written by a newer toolbus (`schema_too_new`).
 */
export async function openSqliteSkillRegistry(
  options: SqliteSkillRegistryOptions,
): Promise<OpenedSkillRegistry> {
  // A connection of its own, as the search index opens one, rather than a caller's: a migration target's lock orders
  // only the queries that go through that target, so a second target on a connection that storage (or anyone)
  // already drives through its own would start its transaction while the other's is open across an await, or take
  // the other's statements into its own. Two connections on one file are ordered by SQLite's write lock instead,
  // which storage's dialect waits for without blocking the thread (sqlite-migration-target.ts): while another
  // connection (`toolbus serve` beside `toolbus skills add`) holds it, a write waits rather than failing with
  // "database is locked".
  const database = openDatabaseFile('The skill registry', options.database);
  return openSqlSkillRegistry(sqliteMigrationTarget(database), countedInOldTable);
}

/**
 * Registry files of the releases before the registry ran on storage's migration runner recorded the same steps in
 * `toolbus_skills_migrations` (version only): the runner records them as its own, once, and the old table goes. On a
 * refusal (more steps than this toolbus knows) the transaction rolls back and the file keeps its old table.
 */
const countedInOldTable: EarlierNumbering = async (trx) => {
  const { rows: tables } = await sql<{ name: string }>`SELECT name FROM sqlite_master
    WHERE type = 'table' AND name = 'toolbus_skills_migrations'`.execute(trx);
  if (tables.length === 0) return undefined;
  const { rows } = await sql<{ version: number | null }>`SELECT max(version) AS version
    FROM toolbus_skills_migrations`.execute(trx);
  await sql`DROP TABLE toolbus_skills_migrations`.execute(trx);
  return rows[0]?.version ?? 0;
};

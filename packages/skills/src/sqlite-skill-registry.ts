import type { DatabaseSync } from 'node:sqlite';
import { openDatabaseFile } from '@toolbus/storage';
import { type EarlierNumbering, migrate, sqliteMigrationTarget } from '@toolbus/storage/backend';
import { sql } from 'kysely';
import { SkillBundleError } from './skill-bundle-error.ts';
import type { SkillRecord, SkillRegistry } from './skill-registry.ts';
import { skillRegistryMigrations } from './skill-registry-migrations.ts';

/** Options for {@link openSqliteSkillRegistry}. */
export interface SqliteSkillRegistryOptions {
  /**
   * The SQLite file (`:memory:` for a private in-memory one). It may be another store's file, storage's too: the
   * registry opens a connection of its own to it.
   */
  readonly database: string;
}

interface Row {
  id: string;
  name: string;
  description: string;
  front_matter: string;
  sha256: string;
  blob_key: string;
  total_bytes: number;
  file_count: number;
  is_built_in: number;
  findings: string;
  findings_accepted: number;
  created_at: string;
}

/**
 * Opens a {@link SkillRegistry} on `node:sqlite`, migrating its file first with storage's migration runner. It owns
 * its tables (`toolbus_skills`, and `skill_registry_migrations` recording which of its steps ran), so it can share a
 * database with other toolbus stores. Fails closed on a file written by a newer toolbus (`schema_too_new`).
 */
export async function openSqliteSkillRegistry(options: SqliteSkillRegistryOptions): Promise<SkillRegistry> {
  // A connection of its own, as the search index opens one, rather than a caller's: a migration target's lock orders
  // only the queries that go through that target, so a second target on a connection that storage (or anyone)
  // already drives through its own would start its transaction while the other's is open across an await, or take
  // the other's statements into its own. Two connections on one file are ordered by SQLite's write lock instead,
  // which the target waits for without blocking the thread (sqlite-migration-target.ts).
  const database = openDatabaseFile('The skill registry', options.database);
  const target = sqliteMigrationTarget(database);
  try {
    await migrate(target, skillRegistryMigrations, 'skill_registry_migrations', countedInOldTable);
  } catch (error) {
    database.close();
    throw error;
  }
  // The registry's statements run on the connection itself, each write through `exclusive`: while another
  // connection (`toolbus serve` beside `toolbus skills add`) holds the file's write lock, it waits for it without
  // blocking the thread, as storage's writes do, rather than failing with "database is locked".
  const { exclusive } = target;
  const columns =
    'id, name, description, front_matter, sha256, blob_key, total_bytes, file_count, is_built_in, findings, findings_accepted, created_at';
  const placeholders = columns
    .split(', ')
    .map((column) => `:${column}`)
    .join(', ');
  const insert = database.prepare(`INSERT INTO toolbus_skills (${columns}) VALUES (${placeholders})`);
  const selectOne = database.prepare(`SELECT ${columns} FROM toolbus_skills WHERE name = ?`);
  const selectAll = database.prepare(`SELECT ${columns} FROM toolbus_skills ORDER BY name`);
  const deleteOne = database.prepare('DELETE FROM toolbus_skills WHERE name = ?');
  const get = (name: string) => {
    const row = selectOne.get(name) as Row | undefined;
    return row === undefined ? undefined : fromRow(row);
  };
  return {
    insert: (record) =>
      exclusive(() => {
        try {
          insert.run(toRow(record) as unknown as Record<string, string | number>);
        } catch (error) {
          // SQLITE_CONSTRAINT_UNIQUE: the name is taken (checked by the database, so two writers cannot race).
          if ((error as { errcode?: number }).errcode !== 2067) throw error;
          throw new SkillBundleError({
            code: 'skill_exists',
            message: `A skill named "${record.name}" already exists.`,
            cause: error,
          });
        }
      }),
    replace: (record) =>
      exclusive(() =>
        inSavepoint(database, () => {
          const previous = get(record.name);
          deleteOne.run(record.name);
          insert.run(toRow(record) as unknown as Record<string, string | number>);
          return previous;
        }),
      ),
    get: (name) => exclusive(() => get(name)),
    list: () => exclusive(() => (selectAll.all() as unknown as Row[]).map(fromRow)),
    // The row read and deleted in one savepoint: a concurrent replace cannot slip between the two.
    delete: (name) =>
      exclusive(() =>
        inSavepoint(database, () => {
          const previous = get(name);
          deleteOne.run(name);
          return previous;
        }),
      ),
  };
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

/**
 * Runs `work` atomically (a savepoint outside a transaction acts as a transaction of its own). Rolled back when it
 * throws, so a write that found the file busy changed nothing and `exclusive` may run it again.
 */
function inSavepoint<Result>(database: DatabaseSync, work: () => Result): Result {
  database.exec('SAVEPOINT toolbus_skills');
  try {
    const result = work();
    database.exec('RELEASE toolbus_skills');
    return result;
  } catch (error) {
    database.exec('ROLLBACK TO toolbus_skills');
    database.exec('RELEASE toolbus_skills');
    throw error;
  }
}

function toRow(record: SkillRecord): Row {
  return {
    id: record.id,
    name: record.name,
    description: record.description,
    front_matter: JSON.stringify(record.frontMatter),
    sha256: record.sha256,
    blob_key: record.blobKey,
    total_bytes: record.totalBytes,
    file_count: record.fileCount,
    is_built_in: record.isBuiltIn ? 1 : 0,
    findings: JSON.stringify(record.findings),
    findings_accepted: record.findingsAccepted ? 1 : 0,
    created_at: record.createdAt,
  };
}

function fromRow(row: Row): SkillRecord {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    frontMatter: JSON.parse(row.front_matter),
    sha256: row.sha256,
    blobKey: row.blob_key,
    totalBytes: row.total_bytes,
    fileCount: row.file_count,
    isBuiltIn: row.is_built_in === 1,
    findings: JSON.parse(row.findings),
    findingsAccepted: row.findings_accepted === 1,
    createdAt: row.created_at,
  };
}

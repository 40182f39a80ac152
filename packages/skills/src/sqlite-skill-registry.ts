import type { DatabaseSync } from 'node:sqlite';
import { openDatabaseFile } from '@toolbus/storage';
import { SkillBundleError } from './skill-bundle-error.ts';
import type { SkillRecord, SkillRegistry } from './skill-registry.ts';

/** Statements that bring a database to the current schema; each runs once, in order, recorded by version. */
const migrations: readonly string[] = [
  `CREATE TABLE toolbus_skills (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL UNIQUE,
     description TEXT NOT NULL,
     front_matter TEXT NOT NULL,
     sha256 TEXT NOT NULL,
     blob_key TEXT NOT NULL,
     total_bytes INTEGER NOT NULL,
     file_count INTEGER NOT NULL,
     is_built_in INTEGER NOT NULL,
     findings TEXT NOT NULL,
     findings_accepted INTEGER NOT NULL,
     created_at TEXT NOT NULL
   ) STRICT`,
];

/** Options for {@link createSqliteSkillRegistry}. */
export interface SqliteSkillRegistryOptions {
  /** An open database, or a file path (`:memory:` for a private in-memory one). */
  readonly database: DatabaseSync | string;
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
 * A {@link SkillRegistry} on `node:sqlite`. It owns its tables (`toolbus_skills`, and `toolbus_skills_migrations`
 * recording which migrations ran), created by an idempotent migration on first use, so it can share a database
 * with other toolbus stores.
 */
export function createSqliteSkillRegistry(options: SqliteSkillRegistryOptions): SkillRegistry {
  const database =
    typeof options.database === 'string'
      ? openDatabaseFile('The skill registry', options.database)
      : options.database;
  migrate(database);
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
    async insert(record) {
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
    },
    async replace(record) {
      return inSavepoint(database, () => {
        const previous = get(record.name);
        deleteOne.run(record.name);
        insert.run(toRow(record) as unknown as Record<string, string | number>);
        return previous;
      });
    },
    async get(name) {
      return get(name);
    },
    async list() {
      return (selectAll.all() as unknown as Row[]).map(fromRow);
    },
    async delete(name) {
      const previous = get(name);
      deleteOne.run(name);
      return previous;
    },
  };
}

function migrate(database: DatabaseSync): void {
  database.exec('CREATE TABLE IF NOT EXISTS toolbus_skills_migrations (version INTEGER PRIMARY KEY) STRICT');
  const applied = new Set(
    (database.prepare('SELECT version FROM toolbus_skills_migrations').all() as { version: number }[]).map(
      (row) => row.version,
    ),
  );
  for (const [index, statement] of migrations.entries()) {
    if (applied.has(index + 1)) continue;
    inSavepoint(database, () => {
      database.exec(statement);
      database.prepare('INSERT INTO toolbus_skills_migrations (version) VALUES (?)').run(index + 1);
    });
  }
}

/**
 * Runs `work` atomically. A savepoint (unlike BEGIN) nests inside a transaction the caller may already hold on a
 * shared database, and acts as a transaction of its own otherwise.
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

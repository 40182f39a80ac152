import {
  byteOrder,
  type EarlierNumbering,
  isKeyTaken,
  type MigrationTarget,
  migrate,
} from '@toolbus/storage/backend';
import { type QueryExecutorProvider, type RawBuilder, sql } from 'kysely';
import { SkillBundleError } from './skill-bundle-error.ts';
import type { SkillRecord, SkillRegistry } from './skill-registry.ts';
import { skillRegistryMigrations } from './skill-registry-migrations.ts';

/** A registry its opener made: it owns its connection (SQLite) or pool (PostgreSQL), which `close` ends. */
export interface OpenedSkillRegistry extends SkillRegistry {
  close(): Promise<void>;
}

/** A row as either database returns it: flags are 0/1 on SQLite, booleans on PostgreSQL. */
interface Row {
  id: string;
  name: string;
  description: string;
  front_matter: string;
  sha256: string;
  blob_key: string;
  total_bytes: number;
  file_count: number;
  is_built_in: number | boolean;
  findings: string;
  findings_accepted: number | boolean;
  created_at: string;
}

const columns = sql.raw(
  'id, name, description, front_matter, sha256, blob_key, total_bytes, file_count, is_built_in, findings, findings_accepted, created_at',
);

/**
 * Migrates the skill registry on `target`'s database (its own version table, `skill_registry_migrations`) and opens
 * it: how both the SQLite registry file and the PostgreSQL registry open. On a failure the builder is destroyed.
 */
export async function openSqlSkillRegistry(
  target: MigrationTarget,
  earlier?: EarlierNumbering,
): Promise<OpenedSkillRegistry> {
  try {
    await migrate(target, skillRegistryMigrations, 'skill_registry_migrations', earlier);
  } catch (error) {
    await target.db.destroy().catch(() => {});
    throw error;
  }
  return sqlSkillRegistry(target);
}

/**
 * The skill registry, written once for SQLite and PostgreSQL on storage's builder. The name is unique in the table,
 * so two writers (two processes, two replicas) cannot both take it. A replace or delete reads and writes in one
 * transaction: SQLite's begins IMMEDIATE (holding the file, and waiting for another connection's lock rather than
 * failing), PostgreSQL's locks the table against other writers first, so a concurrent replace of the same name
 * waits and then sees this one's row.
 */
function sqlSkillRegistry(target: MigrationTarget): OpenedSkillRegistry {
  const { db, dialect } = target;
  const lockWriters: RawBuilder<unknown> | undefined =
    dialect === 'postgres' ? sql`LOCK TABLE toolbus_skills IN SHARE ROW EXCLUSIVE MODE` : undefined;
  const get = async (executor: QueryExecutorProvider, name: string) => {
    const { rows } = await sql<Row>`SELECT ${columns} FROM toolbus_skills WHERE name = ${name}`.execute(
      executor,
    );
    return rows[0] === undefined ? undefined : fromRow(rows[0]);
  };
  const insert = async (executor: QueryExecutorProvider, record: SkillRecord) => {
    const row = toRow(record);
    await sql`INSERT INTO toolbus_skills (${columns}) VALUES (${row.id}, ${row.name}, ${row.description},
      ${row.front_matter}, ${row.sha256}, ${row.blob_key}, ${row.total_bytes}, ${row.file_count}, ${row.is_built_in},
      ${row.findings}, ${row.findings_accepted}, ${row.created_at})`.execute(executor);
  };
  const remove = (executor: QueryExecutorProvider, name: string) =>
    sql`DELETE FROM toolbus_skills WHERE name = ${name}`.execute(executor);
  // Reads a row and writes, atomically (see above).
  const readAndWrite = (name: string, write: (trx: QueryExecutorProvider) => Promise<void>) =>
    db.transaction().execute(async (trx) => {
      if (lockWriters !== undefined) await lockWriters.execute(trx);
      const previous = await get(trx, name);
      await write(trx);
      return previous;
    });
  return {
    async insert(record) {
      try {
        await insert(db, record);
      } catch (error) {
        // The name is taken (checked by the database, so two writers cannot race).
        if (!isKeyTaken(error)) throw error;
        throw new SkillBundleError({
          code: 'skill_exists',
          message: `A skill named "${record.name}" already exists.`,
          cause: error,
        });
      }
    },
    replace: (record) =>
      readAndWrite(record.name, async (trx) => {
        await remove(trx, record.name);
        await insert(trx, record);
      }),
    get: (name) => get(db, name),
    async list() {
      const { rows } = await sql<Row>`SELECT ${columns} FROM toolbus_skills
        ORDER BY ${byteOrder(dialect, 'name')}`.execute(db);
      return rows.map(fromRow);
    },
    delete: (name) =>
      readAndWrite(name, async (trx) => {
        await remove(trx, name);
      }),
    close: () => db.destroy(),
  };
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
    // Bound as 0/1 on SQLite by storage's dialect, as booleans on PostgreSQL.
    is_built_in: record.isBuiltIn,
    findings: JSON.stringify(record.findings),
    findings_accepted: record.findingsAccepted,
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
    totalBytes: Number(row.total_bytes),
    fileCount: Number(row.file_count),
    isBuiltIn: row.is_built_in === 1 || row.is_built_in === true,
    findings: JSON.parse(row.findings),
    findingsAccepted: row.findings_accepted === 1 || row.findings_accepted === true,
    createdAt: row.created_at,
  };
}

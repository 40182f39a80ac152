// What a schema step's SQL differs by between SQLite and PostgreSQL, as data (each step is declared once).
import type { StorageDialect } from './store-context.ts';

/** The words a step's SQL differs by between the two databases, as SQLite says them. */
const sqlite = {
  time: 'TEXT',
  json: 'TEXT',
  jsonb: 'TEXT',
  bytes: 'BLOB',
  bigint: 'INTEGER',
  /** The tie-break of rows inserted in one millisecond: `rowid` on SQLite, the `ordinal` column on PostgreSQL. */
  order: 'rowid',
  now: "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
  /** Before step 18, PostgreSQL's JSON columns had no `_json` suffix. */
  jsonColumn: (name: string) => `${name}_json`,
  /** A 0/1 column on SQLite, a boolean on PostgreSQL. */
  flag: (name: string, value: boolean) =>
    `${name} INTEGER NOT NULL DEFAULT ${Number(value)} CHECK (${name} IN (0, 1))`,
  /** The SQL on PostgreSQL, nothing on SQLite. */
  pg: (_sql: string) => '',
  /** The SQL on SQLite, nothing on PostgreSQL. */
  lite: (sql: string) => sql,
};
export type StepWords = Readonly<typeof sqlite>;

const postgres: StepWords = {
  time: 'timestamptz',
  json: 'json',
  jsonb: 'jsonb',
  bytes: 'bytea',
  bigint: 'bigint',
  order: 'ordinal',
  now: 'now()',
  jsonColumn: (name) => name,
  flag: (name, value) => `${name} boolean NOT NULL DEFAULT ${value}`,
  pg: (sql) => sql,
  lite: () => '',
};

export const stepWords: Readonly<Record<StorageDialect, StepWords>> = { sqlite, postgres };

export const searchUsage = `search_usage TEXT NOT NULL DEFAULT 'auto' CHECK (search_usage IN ('auto', 'enabled', 'disabled'))`;
/** PostgreSQL's insertion order, a line of its own after the column before it (on SQLite the line stays empty). */
export const ordinal = (d: StepWords) => `\n  ${d.pg('ordinal bigint GENERATED ALWAYS AS IDENTITY,')}`;
/** An index's last key on PostgreSQL: rows of one millisecond in insertion order. */
export const byOrdinal = (d: StepWords) => d.pg(', ordinal');
export const organizationId = (d: StepWords, references = '') =>
  `organization_id TEXT NOT NULL DEFAULT 'default'${d.pg(` REFERENCES organizations(id)${references}`)}`;

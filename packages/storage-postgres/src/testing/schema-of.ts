import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';

/** SQL with its layout folded: one space between words, none inside parentheses. */
const foldSpace = (sql: string) => sql.replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')');

/**
 * A SQLite file's schema as data: every object of `sqlite_master` (tables with their CHECKs, indexes, triggers) with
 * its SQL, layout folded, and every table's columns. What the fresh-schema test compares.
 */
export function sqliteSchemaOf(path: string): unknown {
  const database = new DatabaseSync(path, { readOnly: true });
  try {
    const objects = database
      .prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name')
      .all()
      .map((row) => ({ ...row, sql: typeof row.sql === 'string' ? foldSpace(row.sql) : row.sql }));
    const columns = database
      .prepare(
        `SELECT m.name AS table_name, p.cid, p.name, p.type, p."notnull", p.dflt_value, p.pk
         FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table' ORDER BY m.name, p.cid`,
      )
      .all()
      .map((row) => ({ ...row }));
    return { objects, columns };
  } finally {
    database.close();
  }
}

/**
 * A PostgreSQL database's schema as data: columns (by name; PostgreSQL cannot place a column added later, so
 * positions are not compared), constraints (CHECK, keys, references), indexes and sequences of `public`.
 */
export async function postgresSchemaOf(url: string): Promise<unknown> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const query = async (text: string) => (await client.query(text)).rows;
    return {
      columns: await query(
        `SELECT table_name, column_name, data_type, is_nullable, column_default, is_identity
         FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, column_name`,
      ),
      constraints: await query(
        `SELECT c.conrelid::regclass::text AS table_name, c.conname, c.contype, pg_get_constraintdef(c.oid) AS definition
         FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
         WHERE n.nspname = 'public' ORDER BY 1, 2`,
      ),
      indexes: await query(
        `SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1, 2`,
      ),
      sequences: await query(
        `SELECT sequence_name, data_type FROM information_schema.sequences WHERE sequence_schema = 'public' ORDER BY 1`,
      ),
    };
  } finally {
    await client.end();
  }
}

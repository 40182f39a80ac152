import { randomUUID } from 'node:crypto';
import { type SecretBox, StorageError } from '@toolbus/storage';
import type pg from 'pg';

/** Something that runs a parameterised query: the pool, or one client inside a transaction. */
export interface Queryable {
  query<Row extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: readonly unknown[],
  ): Promise<pg.QueryResult<Row>>;
}

/** What every PostgreSQL store shares: the pool, the secret box, and the clock. */
export interface PostgresContext {
  readonly pool: pg.Pool;
  readonly secrets: SecretBox;
  now(): string;
  newId(): string;
  /** Runs `action` in one transaction on one client; rolls back when it throws. */
  transaction<Result>(action: (client: Queryable) => Promise<Result>): Promise<Result>;
}

/** Builds the shared context of the PostgreSQL stores. */
export function createPostgresContext(pool: pg.Pool, secrets: SecretBox): PostgresContext {
  return {
    pool,
    secrets,
    now: () => new Date().toISOString(),
    newId: () => randomUUID(),
    transaction: (action) => inTransaction(pool, action),
  };
}

/** Runs `action` in one transaction on one client of `pool`; rolls back when it throws. */
export async function inTransaction<Result>(
  pool: pg.Pool,
  action: (client: Queryable) => Promise<Result>,
): Promise<Result> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await action(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

// SQLSTATE classes (https://www.postgresql.org/docs/current/errcodes-appendix.html): 23505 is a unique violation;
// the other integrity violations and a value of the wrong form break a schema rule.
const conflictCodes = new Set(['23505']);
const invalidCodes = new Set(['23502', '23503', '23514', '22P02', '22001', '22003']);

/** Runs a query, turning constraint violations into typed `conflict` / `invalid_input` errors. */
export async function withConstraintErrors<Result>(
  what: string,
  action: () => Promise<Result>,
): Promise<Result> {
  try {
    return await action();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && conflictCodes.has(code)) {
      throw new StorageError({
        code: 'conflict',
        message: `${what}: a row with the same key exists.`,
        cause: error,
      });
    }
    if (typeof code === 'string' && invalidCodes.has(code)) {
      throw new StorageError({
        code: 'invalid_input',
        message: `${what}: the values break a schema rule.`,
        cause: error,
      });
    }
    throw error;
  }
}

/** A timestamptz column as the ISO string the storage interface returns. */
export function isoTime(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/** A nullable timestamptz column as an ISO string or null. */
export function isoTimeOrNull(value: Date | string | null): string | null {
  return value === null ? null : isoTime(value);
}

/** The `not_found` error for a missing row. */
export function notFound(what: string, id: string): StorageError {
  return new StorageError({ code: 'not_found', message: `${what} ${JSON.stringify(id)} does not exist.` });
}

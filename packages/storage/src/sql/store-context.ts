import { randomUUID } from 'node:crypto';
import { type Kysely, type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import type { SecretBox } from '../secret-box.ts';
import { StorageError } from '../storage-error.ts';
import type { StorageSchema } from './storage-schema.ts';

/** The databases storage runs on. */
export type StorageDialect = 'sqlite' | 'postgres';

/** The builder over storage's tables, or one transaction of it. */
export type StorageDb = Kysely<StorageSchema>;

/**
 * What every store shares, on either database: the query builder, the secret box and the clock, and the few
 * places where the two databases' SQL differs (see docs/postgres-storage.md).
 */
export interface StoreContext {
  readonly db: StorageDb;
  readonly dialect: StorageDialect;
  readonly secrets: SecretBox;
  now(): string;
  newId(): string;
  /** Insertion order, the tie-break of rows created in one millisecond: rowid on SQLite, `ordinal` on PostgreSQL. */
  readonly insertionOrder: RawBuilder<number>;
  /** A text column in byte order (SQLite's default collation; PostgreSQL's "C"), the same on both databases. */
  byteOrder(column: string): RawBuilder<string>;
  /** Runs `action` in one transaction; rolls back when it throws. */
  transaction<Result>(action: (trx: StorageDb) => Promise<Result>): Promise<Result>;
}

/** Builds the shared context of the stores. */
export function createStoreContext(options: {
  readonly db: StorageDb;
  readonly dialect: StorageDialect;
  readonly secrets: SecretBox;
}): StoreContext {
  const { db, dialect } = options;
  return {
    ...options,
    now: () => new Date().toISOString(),
    newId: () => randomUUID(),
    insertionOrder: sql<number>`${sql.ref(dialect === 'sqlite' ? 'rowid' : 'ordinal')}`,
    byteOrder: (column) =>
      dialect === 'sqlite' ? sql<string>`${sql.ref(column)}` : sql<string>`${sql.ref(column)} COLLATE "C"`,
    transaction: (action) => db.transaction().execute(action),
  };
}

/**
 * Locks the selected rows until the transaction ends, on PostgreSQL (where another replica may write between a
 * read and a write); SQLite's IMMEDIATE transactions already hold the whole database.
 */
// biome-ignore lint/suspicious/noExplicitAny: any query over the schema.
export function lockedRows<Query extends SelectQueryBuilder<StorageSchema, any, any>>(
  context: StoreContext,
  query: Query,
): Query {
  return context.dialect === 'postgres' ? (query.forUpdate() as Query) : query;
}

// SQLite extended result codes (https://www.sqlite.org/rescode.html) and PostgreSQL SQLSTATEs
// (https://www.postgresql.org/docs/current/errcodes-appendix.html): a unique key taken, or a schema rule broken.
const conflictCodes = new Set<unknown>([2067, 1555, '23505']);
const invalidCodes = new Set<unknown>([275, 787, 1299, '23502', '23503', '23514', '22P02', '22001', '22003']);

/** Runs a query, turning constraint violations into typed `conflict` / `invalid_input` errors. */
export async function withConstraintErrors<Result>(
  what: string,
  action: () => Promise<Result>,
): Promise<Result> {
  try {
    return await action();
  } catch (error) {
    throw constraintError(what, error);
  }
}

/** A constraint violation as a typed `conflict` / `invalid_input` error; any other error as it is. */
export function constraintError(what: string, error: unknown): unknown {
  const { errcode, code } = error as { errcode?: number; code?: unknown };
  const reason = errcode ?? code;
  if (conflictCodes.has(reason)) {
    return new StorageError({
      code: 'conflict',
      message: `${what}: a row with the same key exists.`,
      cause: error,
    });
  }
  if (invalidCodes.has(reason)) {
    return new StorageError({
      code: 'invalid_input',
      message: `${what}: the values break a schema rule.`,
      cause: error,
    });
  }
  return error;
}

/** The `not_found` error for a missing row. */
export function notFound(what: string, id: string): StorageError {
  return new StorageError({ code: 'not_found', message: `${what} ${JSON.stringify(id)} does not exist.` });
}

/** How many rows a write changed (both databases report it as a bigint). */
export function changed(result: {
  readonly numUpdatedRows?: bigint;
  readonly numDeletedRows?: bigint;
}): number {
  return Number(result.numUpdatedRows ?? result.numDeletedRows ?? 0n);
}

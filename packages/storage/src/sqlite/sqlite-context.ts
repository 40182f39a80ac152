import { randomUUID } from 'node:crypto';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { SecretBox } from '../secret-box.ts';
import { StorageError } from '../storage-error.ts';

/** What every SQLite store shares: the connection, the secret box, and the clock. */
export interface SqliteContext {
  readonly database: DatabaseSync;
  readonly secrets: SecretBox;
  now(): string;
  newId(): string;
}

/** Builds the shared context of the SQLite stores. */
export function createSqliteContext(database: DatabaseSync, secrets: SecretBox): SqliteContext {
  return { database, secrets, now: () => new Date().toISOString(), newId: () => randomUUID() };
}

// SQLite extended result codes (https://www.sqlite.org/rescode.html).
const conflictCodes = new Set([2067, 1555]);
const invalidCodes = new Set([275, 787, 1299]);

/** Runs a statement, turning constraint violations into typed `conflict` / `invalid_input` errors. */
export function withConstraintErrors<Result>(what: string, action: () => Result): Result {
  try {
    return action();
  } catch (error) {
    const code = (error as { errcode?: number }).errcode;
    if (code !== undefined && conflictCodes.has(code)) {
      throw new StorageError({
        code: 'conflict',
        message: `${what}: a row with the same key exists.`,
        cause: error,
      });
    }
    if (code !== undefined && invalidCodes.has(code)) {
      throw new StorageError({
        code: 'invalid_input',
        message: `${what}: the values break a schema rule.`,
        cause: error,
      });
    }
    throw error;
  }
}

interface TransactionStatements {
  readonly begin: StatementSync;
  readonly commit: StatementSync;
  readonly rollback: StatementSync;
}

// Prepared once per connection: a server writing packets for many turns runs thousands of transactions a second,
// and `exec` would parse these each time.
const transactionStatements = new WeakMap<DatabaseSync, TransactionStatements>();

function statementsOf(database: DatabaseSync): TransactionStatements {
  let statements = transactionStatements.get(database);
  if (statements === undefined) {
    statements = {
      begin: database.prepare('BEGIN IMMEDIATE'),
      commit: database.prepare('COMMIT'),
      rollback: database.prepare('ROLLBACK'),
    };
    transactionStatements.set(database, statements);
  }
  return statements;
}

/** Runs `action` in one transaction (synchronously, so nothing else interleaves on the connection). */
export function inTransaction<Result>(database: DatabaseSync, action: () => Result): Result {
  const { begin, commit, rollback } = statementsOf(database);
  begin.run();
  try {
    const result = action();
    commit.run();
    return result;
  } catch (error) {
    rollback.run();
    throw error;
  }
}

/** The `not_found` error for a missing row. */
export function notFound(what: string, id: string): StorageError {
  return new StorageError({ code: 'not_found', message: `${what} ${JSON.stringify(id)} does not exist.` });
}

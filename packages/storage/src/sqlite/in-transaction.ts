import type { DatabaseSync, StatementSync } from 'node:sqlite';

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

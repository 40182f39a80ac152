import type { DatabaseSync } from 'node:sqlite';
import { Kysely } from 'kysely';
import type { MigrationTarget } from './migrate.ts';
import { NodeSqliteDialect } from './node-sqlite-dialect.ts';
import type { StorageSchema } from './storage-schema.ts';

/** The builder over a `node:sqlite` connection, and how a migration step's script runs on it. */
export function sqliteMigrationTarget(database: DatabaseSync): MigrationTarget & {
  readonly db: Kysely<StorageSchema>;
  /** Runs work on the raw connection while no query or transaction of the builder holds it (see NodeSqliteDialect). */
  exclusive<Result>(action: () => Result | Promise<Result>): Promise<Result>;
} {
  const dialect = new NodeSqliteDialect(database);
  return {
    db: new Kysely<StorageSchema>({ dialect }),
    dialect: 'sqlite',
    exclusive: (action) => dialect.exclusive(action),
    // node:sqlite prepares one statement at a time; a script runs whole through exec, inside the transaction that
    // holds the connection.
    runScript: async (_transaction, script) => {
      database.exec(script);
    },
  };
}

import type { DatabaseSync } from 'node:sqlite';
import { Kysely } from 'kysely';
import type { MigrationTarget } from './migrate.ts';
import { NodeSqliteDialect } from './node-sqlite-dialect.ts';
import type { StorageSchema } from './storage-schema.ts';

/** The builder over a `node:sqlite` connection, and how a migration step's script runs on it. */
export function sqliteMigrationTarget(
  database: DatabaseSync,
): MigrationTarget & { readonly db: Kysely<StorageSchema> } {
  return {
    db: new Kysely<StorageSchema>({ dialect: new NodeSqliteDialect(database) }),
    dialect: 'sqlite',
    // node:sqlite prepares one statement at a time; a script runs whole through exec, inside the transaction that
    // holds the connection.
    runScript: async (_transaction, script) => {
      database.exec(script);
    },
  };
}

import type { DatabaseSync } from 'node:sqlite';
import { Kysely } from 'kysely';
import type { MigrationTarget } from './migrate.ts';
import { nodeSqliteDialect } from './node-sqlite-dialect.ts';
import type { StorageSchema } from './storage-schema.ts';

/**
 * The builder over a `node:sqlite` connection, how a migration step's script runs on it, and how work runs on the
 * raw connection while no query or transaction of the builder holds it (see nodeSqliteDialect).
 */
export function sqliteMigrationTarget(
  database: DatabaseSync,
): MigrationTarget & Pick<ReturnType<typeof nodeSqliteDialect>, 'exclusive'> {
  const dialect = nodeSqliteDialect(database);
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

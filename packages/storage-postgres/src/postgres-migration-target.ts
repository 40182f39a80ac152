import type { MigrationTarget, StorageSchema } from '@toolbus/storage/backend';
import { Kysely, PostgresDialect, sql } from 'kysely';
import type pg from 'pg';

/** The builder over a PostgreSQL pool, and how a migration step's script runs on it. */
export function postgresMigrationTarget(pool: pg.Pool): MigrationTarget {
  return {
    db: new Kysely<StorageSchema>({ dialect: new PostgresDialect({ pool }) }),
    dialect: 'postgres',
    // Without parameters, pg sends the script as one simple query: every statement runs, in the transaction.
    runScript: async (transaction, script) => {
      await sql.raw(script).execute(transaction);
    },
  };
}

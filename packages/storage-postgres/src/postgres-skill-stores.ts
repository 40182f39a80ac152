import { openSqlSkillStores, type SkillStores } from '@toolbus/skills';
import { postgresMigrationTarget } from './postgres-migration-target.ts';
import { openPostgresPool, type PostgresConnectionOptions } from './postgres-pool.ts';

/**
 * Opens (creating their tables when needed) `@toolbus/skills`' registry and bundles on PostgreSQL, in tables of
 * their own, on a pool of at most 2 connections unless told otherwise (skills are written rarely, read once a turn).
 */
export async function openPostgresSkillStores(options: PostgresConnectionOptions): Promise<SkillStores> {
  const pool = await openPostgresPool({ maxConnections: 2, ...options });
  return openSqlSkillStores(postgresMigrationTarget(pool));
}

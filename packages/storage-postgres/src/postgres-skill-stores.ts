import { openSqlSkillStores, type SkillStores } from '@toolbus/skills';
import { postgresMigrationTarget } from './postgres-migration-target.ts';
import { openPostgresPool, type PostgresConnectionOptions } from './postgres-pool.ts';

/**
 * Opens (creating their tables when needed) the skill registry and the skills' bundles on PostgreSQL, for
 * deployments whose replicas share one database: the registry of `@toolbus/skills`, written once for both databases,
 * and its SQL blob store, on a pool of their own (at most 2 connections unless told otherwise: skills are written
 * rarely and read once per turn). The storage database may hold them (their tables are separate).
 */
export async function openPostgresSkillStores(options: PostgresConnectionOptions): Promise<SkillStores> {
  const pool = await openPostgresPool({ maxConnections: 2, ...options });
  return openSqlSkillStores(postgresMigrationTarget(pool));
}

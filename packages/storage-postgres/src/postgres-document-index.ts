import { type DocumentIndexOptions, type DocumentSearchIndex, openSqlDocumentIndex } from '@toolbus/tools';
import { postgresMigrationTarget } from './postgres-migration-target.ts';
import { openPostgresPool, type PostgresConnectionOptions } from './postgres-pool.ts';

/**
 * Options of {@link openPostgresDocumentIndex}: the storage database may hold the index too (its tables are
 * separate); the index keeps at most 5 connections unless told otherwise.
 */
export interface OpenPostgresDocumentIndexOptions extends PostgresConnectionOptions, DocumentIndexOptions {}

/** Opens (creating its tables when needed) `@toolbus/tools`' internal_search index on PostgreSQL full-text search. */
export async function openPostgresDocumentIndex(
  options: OpenPostgresDocumentIndexOptions,
): Promise<DocumentSearchIndex> {
  const pool = await openPostgresPool({ maxConnections: 5, ...options });
  return openSqlDocumentIndex(postgresMigrationTarget(pool), options);
}

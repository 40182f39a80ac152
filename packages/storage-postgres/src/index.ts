export type { OpenPostgresStorageOptions } from './open-postgres-storage.ts';
export { openPostgresStorage } from './open-postgres-storage.ts';
export * from './postgres-document-index.ts';
export type { PostgresTarget } from './postgres-unreachable-error.ts';
export { describePostgresUrl } from './postgres-unreachable-error.ts';

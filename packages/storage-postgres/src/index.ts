export type { OpenPostgresStorageOptions } from './open-postgres-storage.ts';
export { openPostgresStorage } from './open-postgres-storage.ts';
export * from './postgres-document-index.ts';
export type { PostgresTarget } from './postgres-url.ts';
export { describePostgresUrl } from './postgres-url.ts';

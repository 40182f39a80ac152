export type { OpenPostgresStorageOptions } from './open-postgres-storage.ts';
export { openPostgresStorage } from './open-postgres-storage.ts';
export * from './postgres-document-index.ts';
export * from './postgres-skill-stores.ts';

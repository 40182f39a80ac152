// `@toolbus/storage/backend`: what an opener of another database (PostgreSQL) needs to run the stores written once:
// openSqlStorage, the migration runner, the packet-streams hook and its statements, and the builder's schema.

export type { SqlStorageOptions } from './open-sql-storage.ts';
export { openSqlStorage } from './open-sql-storage.ts';
export { jsonArray } from './sql/json-array-parameter.ts';
export type { MigrationTable, MigrationTarget } from './sql/migrate.ts';
export { migrate, schemaVersion } from './sql/migrate.ts';
export { sqliteMigrationTarget } from './sql/sqlite-migration-target.ts';
export type { StorageSchema } from './sql/storage-schema.ts';
export type { StorageDb, StorageDialect, StoreContext } from './sql/store-context.ts';
export { notFound } from './sql/store-context.ts';
export type { PacketStreams, Statements } from './stores/packet-streams.ts';

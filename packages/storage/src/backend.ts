// `@toolbus/storage/backend`: what an opener of another database (PostgreSQL) needs to run the stores written once:
// openSqlStorage, the migration runner, the packet-streams hook, the builder's schema, and what a database's own
// start and end of a turn share with the chat store.

export type { SqlStorageOptions } from './open-sql-storage.ts';
export { openSqlStorage } from './open-sql-storage.ts';
export type { MigrationTable, MigrationTarget } from './sql/migrate.ts';
export { migrate, schemaVersion } from './sql/migrate.ts';
export { sqliteMigrationTarget } from './sql/sqlite-migration-target.ts';
export type { StorageSchema } from './sql/storage-schema.ts';
export type { StorageDb, StorageDialect, StoreContext } from './sql/store-context.ts';
export {
  changed,
  constraintError,
  lockedRows,
  notFound,
  withConstraintErrors,
} from './sql/store-context.ts';
export { toTurn, turnAlreadyEnded, turnStillRunning } from './stores/chat-store.ts';
export type { PacketStreams } from './stores/packet-streams.ts';

// `@toolbus/storage/backend`: what an opener of another database (PostgreSQL) needs to run the stores written once:
// openSqlStorage, the migration runner (the search index runs on it too, on either database), the packet-streams hook
// and what both databases' packet streams share, and the builder's schema.

export { openSqlStorage } from './open-sql-storage.ts';
export { jsonArray } from './sql/json-array-parameter.ts';
export type { EarlierNumbering, MigrationTarget } from './sql/migrate.ts';
export { migrate } from './sql/migrate.ts';
export { sqliteMigrationTarget } from './sql/sqlite-migration-target.ts';
export type { StorageSchema } from './sql/storage-schema.ts';
export { byteOrder, isKeyTaken, type StorageDialect } from './sql/store-context.ts';
export type { PacketRow, PacketStreams, RunStatement } from './stores/packet-streams.ts';
export { appended, storedPackets, tablePackets, turnKey } from './stores/packet-streams.ts';

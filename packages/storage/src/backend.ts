// `@toolbus/storage/backend`: the rules every storage backend enforces the same way, for a second backend
// (PostgreSQL) to share with the embedded SQLite one instead of restating them.
export { checkChatTitle, defaultChatTitle } from './rules/check-chat-title.ts';
export { checkMcpEndpoint } from './rules/check-mcp-endpoint.ts';
export { checkMemoryCap } from './rules/check-memory-cap.ts';
export { checkPacketCursor, defaultPacketPageSize } from './rules/check-packet-cursor.ts';
export type { McpServerColumns } from './rules/mcp-server-columns.ts';
export { mcpServerColumns, mcpServerFromColumns } from './rules/mcp-server-columns.ts';
export { personaNameKey, personaNameTaken } from './rules/persona-name.ts';
export { checkpointTurnEnded, researchCheckpointJson } from './rules/research-checkpoint-rules.ts';
export { sealSecretKeyCheck, verifySecretKeyCheck } from './rules/secret-key-check.ts';
export { settingJson } from './rules/setting-json.ts';
export type { ToolRowColumns } from './rules/tool-row-columns.ts';
export { toolRowColumns, toolRowSource } from './rules/tool-row-columns.ts';
export type { MigrationTable, MigrationTarget } from './sql/migrate.ts';
export { migrate, schemaVersion } from './sql/migrate.ts';
export type { SqlStorageOptions } from './sql/open-sql-storage.ts';
export { openSqlStorage } from './sql/open-sql-storage.ts';
export { sqliteMigrationTarget } from './sql/sqlite-migration-target.ts';
export type { StorageSchema } from './sql/storage-schema.ts';
export type { StorageDb, StorageDialect, StoreContext } from './sql/store-context.ts';
export { changed, lockedRows, notFound, withConstraintErrors } from './sql/store-context.ts';
export type { PacketStreams } from './stores/packet-streams.ts';

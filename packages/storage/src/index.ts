export type { ApiKeyRecord, NewApiKey, NewWebSession, WebSessionRecord } from './access.ts';
export type {
  AppendedPacketBatch,
  Chat,
  ChatTurnKind,
  ChatTurnRecord,
  ChatTurnStatus,
  FinishChatTurn,
  NewChat,
  PacketBatch,
  StoredChatMessage,
  StoredPacket,
} from './chat.ts';
export type {
  ConnectedAppActionRecord,
  ConnectedAppPolicy,
  ConnectedAppRecord,
  NewConnectedApp,
} from './connected-app.ts';
export type {
  McpAuthType,
  McpEndpoint,
  McpOAuthState,
  McpPendingAuthorization,
  McpServer,
  McpToolApproval,
  McpTransport,
  NewMcpPendingAuthorization,
  NewMcpServer,
} from './mcp-server.ts';
export type { McpServerAccess } from './mcp-server-access.ts';
export {
  mayUseMcpServer,
  mcpServerAccessKey,
  offeredToSandboxes,
  readMcpServerAccess,
  writeMcpServerAccess,
} from './mcp-server-access.ts';
export type { McpUserCredentialStore } from './mcp-user-credentials.ts';
export {
  mcpHeaderTemplateKey,
  readMcpHeaderTemplate,
  writeMcpHeaderTemplate,
} from './mcp-user-credentials.ts';
export type { Memory, NewMemory } from './memory.ts';
export type { OpenStorageOptions } from './open-storage.ts';
export { openStorage } from './open-storage.ts';
export type {
  NewOrganization,
  Organization,
  OrganizationInvitation,
  OrganizationMember,
  OrganizationRole,
  OrganizationStore,
} from './organization.ts';
export { DEFAULT_ORGANIZATION_ID } from './organization.ts';
export type { NewPersona, Persona, PersonaToolRow, ToolRowSource } from './persona.ts';
export type { ResolveSecretKeyOptions } from './resolve-secret-key.ts';
export { resolveSecretKey } from './resolve-secret-key.ts';
export { personaNameKey } from './rules/persona-name.ts';
export type { SecretBox } from './secret-box.ts';
export { createSecretBox } from './secret-box.ts';
export type { SetMcpServerAccessResult } from './set-mcp-server-access.ts';
export { setMcpServerAccess } from './set-mcp-server-access.ts';
export type { Migration } from './sql/migrations.ts';
export { storageMigrations } from './sql/migrations.ts';
export { loadDatabaseSync } from './sqlite/load-database-sync.ts';
export type {
  AccessStore,
  ChatStore,
  ConnectedAppStore,
  McpServerStore,
  MemoryStore,
  PersonaStore,
  ResearchCheckpointStore,
  SettingStore,
  Storage,
  UploadedFileStore,
  UserStore,
} from './storage.ts';
export { MAX_PENDING_MCP_AUTHORIZATIONS_PER_USER } from './storage.ts';
export type { StorageErrorCode, StorageErrorOptions } from './storage-error.ts';
export { StorageError, storageErrorCodes } from './storage-error.ts';
export type { NewUploadedFile, UploadedFile } from './uploaded-file.ts';
export type { NewUser, SearchUsage, User, UserRole, UserSettings } from './user.ts';

import type { ApiKeyRecord, NewApiKey, NewWebSession, WebSessionRecord } from './access.ts';
import type {
  AppendedPacketBatch,
  Chat,
  ChatTurnKey,
  ChatTurnRecord,
  FinishChatTurn,
  NewChat,
  PacketBatch,
  StoredChatMessage,
  StoredPacket,
} from './chat.ts';
import type { ConnectedAppRecord, NewConnectedApp } from './connected-app.ts';
import type { McpPendingAuthorization, McpServer, McpToolApproval, NewMcpServer } from './mcp-server.ts';
import type { Memory, NewMemory } from './memory.ts';
import type { OrganizationStore } from './organization.ts';
import type { NewPersona, Persona, PersonaToolRow, ToolRowSource } from './persona.ts';
import type { Creating } from './sql/camel-columns.ts';
import type { NewUploadedFile, UploadedFile } from './uploaded-file.ts';
import type { NewUser, User } from './user.ts';
import type { UserSecretStore } from './user-secrets.ts';

/** Users and their settings. */
export interface UserStore {
  create(user: NewUser): Promise<User>;
  /** The user with this id, or with this email. */
  get(by: string | { readonly email: string }): Promise<User | undefined>;
  /** Changes the role and only the given settings; `not_found` when the user does not exist. */
  update(id: string, changes: Pick<NewUser, 'role' | 'settings'>): Promise<User>;
  /** Deletes the user and everything that is theirs (memories, files, OAuth state). */
  delete(id: string): Promise<boolean>;
  /** Every user, oldest first. */
  list(): Promise<readonly User[]>;
}

/**
 * API keys and web sessions. Only hashes of keys, session tokens and CSRF tokens are stored: a copy of the database
 * lets no one sign in.
 */
export interface AccessStore {
  createApiKey(key: NewApiKey): Promise<ApiKeyRecord>;
  /** The key with this id, or with this hash; revoked or not. */
  getApiKey(by: string | { readonly keyHash: string }): Promise<ApiKeyRecord | undefined>;
  listApiKeys(userId: string): Promise<readonly ApiKeyRecord[]>;
  /**
   * Marks the key revoked and deletes the web sessions made with it, in shared storage so every replica sees it at
   * once; false when it was unknown or already revoked.
   */
  revokeApiKey(id: string): Promise<boolean>;
  touchApiKey(id: string): Promise<void>;
  createSession(session: NewWebSession): Promise<WebSessionRecord>;
  /** The unexpired session with this token hash. */
  getSession(tokenHash: string): Promise<WebSessionRecord | undefined>;
  deleteSession(tokenHash: string): Promise<boolean>;
}

/** Personas and their tool rows. */
export interface PersonaStore {
  create(persona: NewPersona): Promise<Persona>;
  get(id: string): Promise<Persona | undefined>;
  list(): Promise<readonly Persona[]>;
  update(id: string, changes: Partial<NewPersona>): Promise<Persona>;
  delete(id: string): Promise<boolean>;
  /** Appends a tool row (exactly one source) at the end of the persona's list. */
  addToolRow(personaId: string, source: ToolRowSource): Promise<PersonaToolRow>;
  /** The persona's rows in order, OpenAPI auth decrypted. */
  listToolRows(personaId: string): Promise<readonly PersonaToolRow[]>;
  removeToolRow(rowId: string): Promise<boolean>;
}

/** MCP servers, admin approvals of tool definitions and OAuth authorizations in progress. */
export interface McpServerStore {
  create(server: NewMcpServer): Promise<McpServer>;
  get(id: string): Promise<McpServer | undefined>;
  list(): Promise<readonly McpServer[]>;
  /** Replaces the server's configuration (secrets re-encrypted). */
  update(id: string, server: NewMcpServer): Promise<McpServer>;
  delete(id: string): Promise<boolean>;
  /** Records (or replaces) the approved definition hash of one tool. */
  approveTool(approval: Omit<McpToolApproval, 'approvedAt'>): Promise<McpToolApproval>;
  listApprovals(serverId: string): Promise<readonly McpToolApproval[]>;
  revokeApproval(approval: Pick<McpToolApproval, 'serverId' | 'toolName'>): Promise<boolean>;
  /**
   * Stores an OAuth authorization in progress (expired ones are dropped; a user keeps at most
   * {@link MAX_PENDING_MCP_AUTHORIZATIONS_PER_USER}, the oldest go first).
   */
  savePendingAuthorization(pending: Omit<McpPendingAuthorization, 'createdAt'>): Promise<void>;
  /** Removes and returns the unexpired authorization with this state hash, atomically: a state is good once. */
  takePendingAuthorization(stateHash: string): Promise<McpPendingAuthorization | undefined>;
}

/** Authorizations in progress one user may hold at once (the oldest is dropped for a new one). */
export const MAX_PENDING_MCP_AUTHORIZATIONS_PER_USER = 20;

/** Memories saved by the memory tool, per user and organisation, oldest first. */
export interface MemoryStore {
  add(memory: NewMemory): Promise<Memory>;
  /** The user's memories in one organisation (default the default one): another organisation's never show. */
  list(userId: string, organizationId?: string): Promise<readonly Memory[]>;
  update(id: string, text: string): Promise<Memory>;
  delete(id: string): Promise<boolean>;
}

/** Uploaded files: metadata and bytes. */
export interface UploadedFileStore {
  put(file: NewUploadedFile): Promise<UploadedFile>;
  get(id: string): Promise<UploadedFile | undefined>;
  /** The bytes, or undefined when the file does not exist. */
  readContent(id: string): Promise<Uint8Array | undefined>;
  listForUser(userId: string): Promise<readonly UploadedFile[]>;
  delete(id: string): Promise<boolean>;
}

/**
 * Chats, their turns, their history and each turn's packet stream. A turn's history is written when the turn ends,
 * together with its status, in one transaction: a process killed mid-turn leaves the history as it was before the
 * turn, and the turn `running` until another process closes it (listed by {@link ChatStore.listRunningTurns}).
 */
export interface ChatStore {
  create(chat: NewChat): Promise<Chat>;
  get(id: string): Promise<Chat | undefined>;
  /** The user's chats, most recently updated first. */
  listForUser(userId: string): Promise<readonly Chat[]>;
  rename(id: string, title: string): Promise<Chat>;
  /** Deletes the chat with its turns, history and packets. */
  delete(id: string): Promise<boolean>;
  /** The whole history, in order. */
  listMessages(chatId: string): Promise<readonly StoredChatMessage[]>;
  /**
   * Starts the next turn (`running`); `conflict` when a turn of the chat is still running. `input` (the user's
   * message) is kept on the turn, not in the history, until the turn ends.
   */
  startTurn(turn: Creating<ChatTurnRecord, 'chatId', 'kind' | 'input'>): Promise<ChatTurnRecord>;
  /** Ends a running turn and appends its history in the same transaction; `conflict` when it already ended. */
  finishTurn(options: FinishChatTurn): Promise<ChatTurnRecord>;
  getTurn(turn: ChatTurnKey): Promise<ChatTurnRecord | undefined>;
  listTurns(chatId: string): Promise<readonly ChatTurnRecord[]>;
  /** Every turn still `running`, of every chat: the turns a dead process left behind are closed with `finishTurn`. */
  listRunningTurns(): Promise<readonly ChatTurnRecord[]>;
  /** Appends packets to a turn's stream; returns the sequence number of the last one. */
  appendPackets(batch: PacketBatch): Promise<number>;
  /**
   * Appends to several turns' streams in one write (one transaction): each batch as {@link appendPackets} would,
   * in order, so a server running many turns pays one commit per pass instead of one per turn. A batch whose turn
   * does not exist fails alone (`not_found` in its result, at its index); the others are written.
   */
  appendPacketBatches(batches: readonly PacketBatch[]): Promise<readonly AppendedPacketBatch[]>;
  /** A turn's packets with a sequence above `after` (default 0), in order, at most `limit`. */
  listPackets(options: ChatTurnKey & { after?: number; limit?: number }): Promise<readonly StoredPacket[]>;
}

/** Deployment-wide settings: JSON values by key. */
export interface SettingStore {
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<boolean>;
}

/** External APIs connected for sandbox code (the egress proxy injects their credentials), per user or organisation. */
export interface ConnectedAppStore {
  create(app: NewConnectedApp): Promise<ConnectedAppRecord>;
  get(id: number): Promise<ConnectedAppRecord | undefined>;
  /**
   * In id order; with `organizationId`, only that organisation's apps; with `userId`, only that user's own and the
   * shared ones (of every organisation unless `organizationId` narrows it).
   */
  list(options?: {
    readonly userId?: string;
    readonly organizationId?: string;
  }): Promise<readonly ConnectedAppRecord[]>;
  delete(id: number): Promise<boolean>;
}

/**
 * The last checkpoint of each running Deep Research turn (opaque JSON written by the research run), so another
 * replica can resume the turn when the one running it dies. Deleted with its turn.
 */
export interface ResearchCheckpointStore {
  /** Stores the turn's checkpoint, replacing the last one; `not_found` for no such turn, `conflict` once it ended. */
  save(options: ChatTurnKey & { checkpoint: unknown }): Promise<void>;
  /** The turn's last checkpoint, or undefined when it saved none. */
  get(turn: ChatTurnKey): Promise<unknown>;
  /** Forgets the turn's checkpoint (its turn ended); false when there was none. */
  delete(turn: ChatTurnKey): Promise<boolean>;
}

/** Everything toolbus persists, grouped by area, the same on SQLite and PostgreSQL. No SQL crosses this boundary. */
export interface Storage {
  readonly users: UserStore;
  readonly personas: PersonaStore;
  readonly mcpServers: McpServerStore;
  /** Each user's own secrets of an MCP server or a connected app (OAuth state, header and placeholder values). */
  readonly userSecrets: UserSecretStore;
  readonly memories: MemoryStore;
  readonly files: UploadedFileStore;
  readonly settings: SettingStore;
  readonly chats: ChatStore;
  readonly connectedApps: ConnectedAppStore;
  readonly access: AccessStore;
  readonly organizations: OrganizationStore;
  readonly researchCheckpoints: ResearchCheckpointStore;
  /** The schema version in use (the highest applied migration). */
  schemaVersion(): Promise<number>;
  close(): Promise<void>;
}

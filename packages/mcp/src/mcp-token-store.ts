import type {
  OAuthClientInformationMixed,
  OAuthDiscoveryState,
  OAuthTokens,
} from '@modelcontextprotocol/client';

/**
 * Everything the OAuth flow keeps for one user on one MCP server. Stored as one JSON-serialisable record; every
 * field is secret or security-relevant, so a persistent store encrypts it at rest and never logs it.
 */
export interface McpOAuthRecord {
  /** As the SDK handed them over (including `issuer`, which binds them to their authorization server). */
  readonly tokens?: OAuthTokens;
  /** When `tokens` were saved (ms since epoch), to tell their age from `expires_in`. */
  readonly tokensSavedAt?: number;
  /** From dynamic client registration (or pre-registered). */
  readonly clientInformation?: OAuthClientInformationMixed;
  /** PKCE verifier of the authorization in progress. */
  readonly codeVerifier?: string;
  /** `state` of the authorization in progress; the callback must present it back. */
  readonly pendingState?: string;
  /** Cached discovery (protected-resource and authorization-server metadata). */
  readonly discoveryState?: OAuthDiscoveryState;
}

/**
 * Persistence of OAuth state per user per MCP server. The storage package provides a SQLite-backed one (encrypted
 * at rest); {@link createInMemoryMcpTokenStore} is the default for tests and single-process use.
 */
export interface McpTokenStore {
  load(userId: string, serverId: string): Promise<McpOAuthRecord | undefined>;
  /** Replaces the whole record. */
  save(userId: string, serverId: string, record: McpOAuthRecord): Promise<void>;
  /** Forgets everything about this user on this server (disconnect). */
  clear(userId: string, serverId: string): Promise<void>;
}

/** A process-local {@link McpTokenStore}; records are copied in and out so callers cannot alias them. */
export function createInMemoryMcpTokenStore(): McpTokenStore {
  const records = new Map<string, string>();
  const key = (userId: string, serverId: string) => JSON.stringify([userId, serverId]);
  return {
    async load(userId, serverId) {
      const stored = records.get(key(userId, serverId));
      return stored === undefined ? undefined : (JSON.parse(stored) as McpOAuthRecord);
    },
    async save(userId, serverId, record) {
      records.set(key(userId, serverId), JSON.stringify(record));
    },
    async clear(userId, serverId) {
      records.delete(key(userId, serverId));
    },
  };
}

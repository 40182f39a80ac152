import type { User, UserRole } from '@toolbus/storage';

/** What an API key may be used for: `chat` (chats, files, memories), `admin` (the admin API), `mcp` (the MCP endpoint). */
export type ApiKeyScope = 'chat' | 'admin' | 'mcp';

/** The scopes a key can carry, in a stable order. */
export const API_KEY_SCOPES: readonly ApiKeyScope[] = ['chat', 'admin', 'mcp'];

/** Who a request acts as, and how it proved it. */
export interface Principal {
  readonly user: User;
  readonly role: UserRole;
  /** The scopes of the key used; a web session or the loopback-only local mode has every scope. */
  readonly scopes: readonly ApiKeyScope[];
  readonly via: 'api-key' | 'session' | 'local';
  /** The API key's id, when one was used (for limits and logs; never the key itself). */
  readonly keyId?: string;
}

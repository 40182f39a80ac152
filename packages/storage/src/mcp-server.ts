import type { Creating, StoredRow } from './sql/camel-columns.ts';

/** How an MCP server authenticates toolbus. */
export type McpAuthType = 'none' | 'api-key' | 'headers' | 'oauth';

/** Where an MCP server lives: a URL for HTTP transports, a command for stdio. */
export type McpEndpoint =
  | {
      readonly transport: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      /** Variables added to the server process's minimal environment (API keys: stored encrypted). */
      readonly environment?: Readonly<Record<string, string>>;
    }
  | { readonly transport: 'streamable-http' | 'sse'; readonly url: string };

/**
 * An MCP server as stored, secrets decrypted (headers, API key): never log their values. Its name is unique: it is
 * used in collision names (`mcp_{server}_{tool}`).
 */
export type McpServer = Pick<StoredRow<'mcp_servers'>, 'id' | 'name' | 'authType' | 'createdAt'> & {
  readonly endpoint: McpEndpoint;
  /** Connection headers (stored encrypted). */
  readonly headers: Readonly<Record<string, string>>;
  /** The API key for `api-key` auth (stored encrypted). */
  readonly apiKey: string | null;
};

/** What creating or replacing an MCP server takes (by default without headers or API key). */
export type NewMcpServer = Creating<McpServer, 'name' | 'endpoint' | 'authType', 'headers'> & {
  readonly apiKey?: string;
};

/** An admin's approval of one MCP tool definition; a tool whose definition hash differs is not offered. */
export type McpToolApproval = StoredRow<'mcp_tool_approvals'>;

/**
 * An MCP OAuth authorization started and not yet finished: who started it, for which server, and where its callback
 * goes. Stored by the hash of its `state` (the callback's only proof), valid once and until `expiresAt`.
 */
export type McpPendingAuthorization = StoredRow<'mcp_oauth_pending'>;

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

/** An MCP server as stored, secrets decrypted (never log them); its name is unique (`mcp_{server}_{tool}`). */
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

/** An MCP OAuth authorization in progress, stored by the hash of its `state`, valid once and until `expiresAt`. */
export type McpPendingAuthorization = StoredRow<'mcp_oauth_pending'>;

import { ToolbusError, type ToolbusErrorOptions } from '@toolbus/spec';

/** Stable codes of {@link McpConnectionError}. */
export type McpConnectionErrorCode =
  /** The transport could not be opened or the MCP handshake failed. */
  | 'mcp_connection_failed'
  /** An HTTP transport was configured but no fetch was given (toolbus never falls back to an unguarded fetch). */
  | 'mcp_fetch_required'
  /** The server needs OAuth but no token store / user was given: fail closed. */
  | 'mcp_oauth_not_configured'
  /**
   * The server refused the request as unauthenticated (HTTP 401) and toolbus had nothing to offer it: no auth
   * configured, or the headers that would carry it were left out because the user's credentials are missing.
   */
  | 'mcp_authentication_required'
  /** An OAuth callback's `state` does not match the authorization in progress. */
  | 'mcp_oauth_state_mismatch'
  /** The server's URL or OAuth settings changed between the start of an authorization and its callback. */
  | 'mcp_oauth_config_changed'
  /** The server URL is not an http(s) URL. */
  | 'mcp_invalid_config';

/** Options for {@link McpConnectionError}. */
export interface McpConnectionErrorOptions extends ToolbusErrorOptions<McpConnectionErrorCode> {
  readonly serverName: string;
}

/** Connecting to an MCP server failed; `code` says why. */
export class McpConnectionError extends ToolbusError<McpConnectionErrorCode> {
  static override readonly errorName = 'McpConnectionError';

  readonly serverName: string;

  constructor(options: McpConnectionErrorOptions) {
    super(options);
    this.serverName = options.serverName;
  }
}

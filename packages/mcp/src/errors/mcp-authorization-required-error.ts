import { ToolbusError } from '@toolbus/spec';

/** Options for {@link McpAuthorizationRequiredError}. */
export interface McpAuthorizationRequiredErrorOptions {
  readonly serverName: string;
  /** Where to send the user; absent when the SDK could not produce one. */
  readonly authorizationUrl?: URL | undefined;
  readonly cause?: unknown;
}

/**
 * The MCP server needs the user to (re)authorize with OAuth. The application sends the user to
 * `authorizationUrl`, then calls `completeMcpOAuth` with the code from its callback, then connects again.
 */
export class McpAuthorizationRequiredError extends ToolbusError {
  static override readonly errorName = 'McpAuthorizationRequiredError';

  readonly serverName: string;
  readonly authorizationUrl: URL | undefined;

  constructor(options: McpAuthorizationRequiredErrorOptions) {
    super({
      code: 'mcp_authorization_required',
      message: `MCP server "${options.serverName}" requires OAuth authorization`,
      cause: options.cause,
    });
    this.serverName = options.serverName;
    this.authorizationUrl = options.authorizationUrl;
  }
}

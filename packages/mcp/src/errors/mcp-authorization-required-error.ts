import { hasErrorMarker, ToolbusError } from '@toolbus/spec';

const mcpAuthorizationRequiredErrorMarker = Symbol.for('toolbus.error.McpAuthorizationRequiredError');

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
  readonly serverName: string;
  readonly authorizationUrl: URL | undefined;
  readonly [mcpAuthorizationRequiredErrorMarker] = true;

  constructor(options: McpAuthorizationRequiredErrorOptions) {
    super({
      code: 'mcp_authorization_required',
      message: `MCP server "${options.serverName}" requires OAuth authorization`,
      cause: options.cause,
    });
    this.name = 'McpAuthorizationRequiredError';
    this.serverName = options.serverName;
    this.authorizationUrl = options.authorizationUrl;
  }

  static override isInstance(error: unknown): error is McpAuthorizationRequiredError {
    return hasErrorMarker(error, mcpAuthorizationRequiredErrorMarker);
  }
}

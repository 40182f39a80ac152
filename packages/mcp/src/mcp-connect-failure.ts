import { ToolbusError } from '@toolbus/spec';
import { McpConnectionError, type McpConnectionErrorCode } from './errors/mcp-connection-error.ts';
import { isMcpSdkError } from './load-mcp-client-sdk.ts';
import type { McpServerConfig } from './mcp-server-config.ts';

/** The typed error a failed connect (other than an authorization demand) is reported as. */
export function connectFailure(
  error: unknown,
  input: {
    readonly config: McpServerConfig;
    readonly oauth: boolean;
    readonly missingCredentials: readonly string[];
    readonly stderrTail: string;
  },
): Error {
  const { config, missingCredentials } = input;
  // The SDK wraps what the fetch threw (the SSRF guard's refusal, say) in its own error: the typed one wins.
  const typed = toolbusCause(error);
  if (typed !== undefined) return typed;
  const fail = (code: McpConnectionErrorCode, message: string) =>
    new McpConnectionError({ code, message, serverName: config.name, cause: error });
  if (!input.oauth && isUnauthenticated(error)) {
    const why =
      missingCredentials.length > 0
        ? `the headers that carry it were left out: no stored value for ${missingCredentials.map((name) => `{${name}}`).join(', ')}`
        : config.auth?.type === 'headers'
          ? 'the configured headers were not accepted'
          : 'no authentication is configured for it';
    return fail(
      'mcp_authentication_required',
      `MCP server "${config.name}" requires authentication, and ${why}. Connect to the server with your credentials first.`,
    );
  }
  const detail = error instanceof Error ? error.message : String(error);
  const stderr =
    input.stderrTail.trim().length > 0 ? ` (server stderr: ${input.stderrTail.trim().slice(-500)})` : '';
  return fail(
    'mcp_connection_failed',
    `Could not connect to MCP server "${config.name}": ${detail}${stderr}`,
  );
}

/** The first {@link ToolbusError} in an error's `cause` chain (bounded: a chain may loop). */
function toolbusCause(error: unknown): ToolbusError | undefined {
  let current = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth += 1) {
    if (ToolbusError.isInstance(current)) return current;
    current = current instanceof Error ? current.cause : undefined;
  }
  return undefined;
}

/** An HTTP 401 from either transport (the SDK raises it as is when no OAuth provider is configured). */
export function isUnauthenticated(error: unknown): boolean {
  return (
    (isMcpSdkError(error, 'SdkHttpError') && error.status === 401) ||
    (isMcpSdkError(error, 'SseError') && error.code === 401)
  );
}

import { toMcpServerConfig } from '@toolbus/assembly';
import { GuardedFetchError } from '@toolbus/core';
import { connectMcpServer, McpAuthorizationRequiredError, McpConnectionError } from '@toolbus/mcp';
import { omitUndefined } from '@toolbus/spec';
import type { NewMcpServer } from '@toolbus/storage';
import { guardRefusal } from '../http/error-answer.ts';
import { ServerError, type ServerErrorCode } from '../http/server-error.ts';

/** What a check of an MCP server found: the tools it lists (names and descriptions). */
export interface McpServerCheck {
  readonly tools: readonly { readonly name: string; readonly description: string }[];
}

/**
 * The answer for a failed connection to an MCP server, in words a person can act on, or undefined when the error
 * is left to `toErrorAnswer`. The outbound guard refusing the address is the deployment's rule, not a fault: it
 * stays a guard refusal with the rule as its code (`ssrf_blocked` …, answered 422 by `toErrorAnswer`, the one owner
 * of statuses), in words that say what to do. A server that cannot be reached or refuses the handshake while an
 * admin adds it is `unreachable` (400); without `unreachable` (a stored server) the central mapping answers it.
 */
export function mcpFailureAnswer(
  error: unknown,
  options: { readonly serverName: string; readonly field: string; readonly unreachable?: ServerErrorCode },
): Error | undefined {
  const refusal = guardRefusal(error);
  if (refusal) {
    return new GuardedFetchError({
      code: refusal.code,
      message: `${options.field}: the outbound guard refused MCP server "${options.serverName}" (rule ${refusal.code}): ${refusal.message}. An admin can allow the host in the deployment's network settings.`,
      ...omitUndefined({ host: refusal.host, address: refusal.address, category: refusal.category }),
      cause: error,
    });
  }
  if (McpAuthorizationRequiredError.isInstance(error)) {
    return new ServerError({
      code: 'invalid_request',
      field: 'body.authType',
      message: `body.authType: MCP server "${options.serverName}" asks for an OAuth sign-in; add it with Auth "OAuth" and connect to it.`,
      cause: error,
    });
  }
  if (McpConnectionError.isInstance(error) && options.unreachable !== undefined) {
    return new ServerError({
      code: options.unreachable,
      field: options.field,
      message: `${options.field}: ${error.message}`,
      cause: error,
    });
  }
  return undefined;
}

/**
 * Connects to an MCP server that is not stored yet and lists its tools, so an admin learns at once whether it
 * works (through the same guarded fetch every later connection uses). An OAuth server cannot be checked before an
 * admin connects to it, so it is not checked here.
 */
export async function checkMcpServer(
  server: NewMcpServer,
  options: { readonly fetch: typeof fetch; readonly timeoutMs?: number },
): Promise<McpServerCheck> {
  const field = server.endpoint.transport === 'stdio' ? 'body.endpoint.command' : 'body.endpoint.url';
  try {
    const connection = await connectMcpServer(
      toMcpServerConfig({
        id: 'unsaved-check',
        headers: {},
        apiKey: null,
        createdAt: new Date(0).toISOString(),
        ...omitUndefined(server),
      } as Parameters<typeof toMcpServerConfig>[0]),
      { fetch: options.fetch, requestTimeoutMs: options.timeoutMs ?? 15_000 },
    );
    try {
      const tools = await connection.listTools();
      return { tools: tools.map((tool) => ({ name: tool.name, description: tool.description })) };
    } finally {
      await connection.close();
    }
  } catch (error) {
    throw (
      mcpFailureAnswer(error, { serverName: server.name, field, unreachable: 'invalid_request' }) ?? error
    );
  }
}

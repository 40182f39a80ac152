import { createStorageMcpTokenStore, toMcpServerConfig } from '@toolbus/assembly';
import {
  connectMcpServer,
  McpAuthorizationRequiredError,
  type McpRefreshLock,
  type ProviderInputSchema,
  providerInputSchema,
  toolDefinitionHash,
} from '@toolbus/mcp';
import { omitUndefined } from '@toolbus/spec';
import type { McpServer, Storage } from '@toolbus/storage';
import { ServerError } from '../http/server-error.ts';
import { mcpFailureAnswer } from './mcp-server-check.ts';

/** An MCP server as an admin sees it: header names and whether a key is set, never their values. */
export interface McpServerView {
  readonly id: string;
  readonly name: string;
  /** Where it lives; a stdio server's environment (it may hold keys) is left out. */
  readonly endpoint:
    | { readonly transport: 'stdio'; readonly command: string; readonly args: readonly string[] }
    | { readonly transport: 'streamable-http' | 'sse'; readonly url: string };
  readonly authType: McpServer['authType'];
  readonly headerNames: readonly string[];
  readonly hasApiKey: boolean;
  readonly createdAt: string;
}

/** One tool of an MCP server, and whether it may be offered. */
export interface McpToolReview {
  readonly name: string;
  readonly description: string;
  readonly definitionHash: string;
  readonly approvedHash: string | null;
  /** `approved`: offered; `drifted`: its definition changed since approval (withheld); `unapproved`: never approved. */
  readonly status: 'approved' | 'drifted' | 'unapproved';
  /**
   * Why the tool is set aside whatever its approval: its input schema cannot be made into one providers accept
   * (a recursive `$ref`, say). Absent for a tool that can be offered.
   */
  readonly setAside?: string;
}

/** What reviewing a stored server's tools takes. */
export interface McpToolReviewOptions {
  readonly storage: Storage;
  readonly fetch: typeof fetch;
  readonly server: McpServer;
  /** An OAuth server is reached with this admin's own tokens (they connect first, like any user). */
  readonly reviewerId?: string | undefined;
  readonly oauthRedirectUrl?: string | undefined;
  readonly oauthRefreshLock?: McpRefreshLock | undefined;
}

/** Connects to the server and compares each tool's definition with its approval. */
export async function reviewMcpServerTools(options: McpToolReviewOptions): Promise<McpToolReview[]> {
  const { storage, server } = options;
  const approvals = new Map(
    (await storage.mcpServers.listApprovals(server.id)).map((approval) => [
      approval.toolName,
      approval.definitionHash,
    ]),
  );
  const connection = await connectForReview(options);
  try {
    const reviews: McpToolReview[] = [];
    for (const tool of await connection.listTools()) {
      const definitionHash = await toolDefinitionHash(tool);
      const approvedHash = approvals.get(tool.name) ?? null;
      reviews.push({
        name: tool.name,
        description: tool.description,
        definitionHash,
        approvedHash,
        status:
          approvedHash === null ? 'unapproved' : approvedHash === definitionHash ? 'approved' : 'drifted',
        ...omitUndefined({ setAside: problemOf(providerInputSchema(tool.inputSchema)) }),
      });
    }
    return reviews;
  } finally {
    await connection.close();
  }
}

/** A connection to the server; an OAuth server the reviewer has not connected to is a `conflict` saying so. */
async function connectForReview(options: McpToolReviewOptions): ReturnType<typeof connectMcpServer> {
  const { server, reviewerId, oauthRedirectUrl } = options;
  try {
    return await connectMcpServer(toMcpServerConfig(server), {
      fetch: options.fetch,
      requestTimeoutMs: 30_000,
      ...(server.authType === 'oauth' && reviewerId !== undefined && oauthRedirectUrl !== undefined
        ? {
            oauth: {
              tokenStore: createStorageMcpTokenStore(options.storage),
              userId: reviewerId,
              redirectUrl: oauthRedirectUrl,
              ...omitUndefined({ refreshLock: options.oauthRefreshLock }),
            },
          }
        : {}),
    });
  } catch (error) {
    if (!McpAuthorizationRequiredError.isInstance(error))
      throw mcpFailureAnswer(error, { serverName: server.name, field: 'path.serverId' }) ?? error;
    throw new ServerError({
      code: 'conflict',
      field: 'path.serverId',
      message: `path.serverId: "${server.name}" uses OAuth; connect to it yourself first (POST /v1/mcp-servers/${server.id}/connection).`,
    });
  }
}

/** A server as an admin sees it (see {@link McpServerView}). */
export function mcpServerView(server: McpServer): McpServerView {
  const endpoint =
    server.endpoint.transport === 'stdio'
      ? { transport: 'stdio' as const, command: server.endpoint.command, args: server.endpoint.args }
      : server.endpoint;
  return {
    id: server.id,
    name: server.name,
    endpoint,
    authType: server.authType,
    headerNames: Object.keys(server.headers),
    hasApiKey: server.apiKey !== null,
    createdAt: server.createdAt,
  };
}

/** The reason a schema is set aside, or nothing when a provider takes it. */
function problemOf(prepared: ProviderInputSchema): string | undefined {
  return prepared.ok ? undefined : prepared.reason;
}

import {
  type ConnectMcpServerOptions,
  connectMcpServer,
  McpAuthorizationRequiredError,
  type McpConnection,
  type McpFileStore,
  type McpLogger,
  type McpRefreshLock,
  type McpTool,
} from '@toolbus/mcp';
import { type FetchFunction, omitUndefined } from '@toolbus/spec';
import {
  type McpToolApproval,
  mayUseMcpServer,
  readMcpServerAccess,
  type Storage,
  type User,
} from '@toolbus/storage';
import { createStorageMcpTokenStore } from './create-storage-mcp-token-store.ts';
import { mcpHeaderTemplateFor } from './mcp-header-template-for.ts';
import type { SkipReason } from './skipped-tool.ts';
import { toMcpServerConfig } from './to-mcp-server-config.ts';
import { contentHash, type ToolAssemblyCache } from './tool-assembly-cache.ts';

/** MCP settings of an assembly. */
export interface AssemblyMcpOptions {
  /** The application's OAuth callback URL (needed for servers with OAuth auth). */
  readonly oauthRedirectUrl?: string;
  /** Serialises OAuth token refreshes (default: within this process); replicas pass a lock they share. */
  readonly oauthRefreshLock?: McpRefreshLock;
  /** The application's Client ID Metadata Document URL: its client id where the authorization server supports one. */
  readonly oauthClientMetadataUrl?: string;
  /** Extra headers from the end user's request (lowest priority; filtered by the MCP client's denylist). */
  readonly requestHeaders?: Readonly<Record<string, string>>;
  readonly fileStore?: McpFileStore;
  readonly logger?: McpLogger;
  /** Timeout of the handshake and `tools/list` (default 20 s). */
  readonly requestTimeoutMs?: number;
  readonly toolCallTimeoutMs?: number;
}

/** One server's tools and approvals, or why none of its rows can be served. */
export type McpServerTools =
  | {
      readonly ok: true;
      readonly serverName: string;
      readonly tools: readonly McpTool[];
      readonly approvals: ReadonlyMap<string, McpToolApproval>;
    }
  | { readonly ok: false; readonly reason: SkipReason; readonly message: string };

/** What {@link loadMcpServerTools} needs. */
export interface LoadMcpServerToolsOptions {
  readonly serverId: string;
  readonly storage: Storage;
  readonly user: User | undefined;
  readonly fetch: FetchFunction;
  readonly mcp: AssemblyMcpOptions;
  readonly cache: ToolAssemblyCache | undefined;
  /** Receives connections this assembly opened without a cache: it closes them when the assembly is closed. */
  readonly ownConnections: McpConnection[];
  readonly signal?: AbortSignal | undefined;
}

/**
 * Connects to one MCP server (or reuses the cached connection) and lists its tools, once per server per assembly.
 * Any failure becomes a reason for that server's rows only: a broken server never fails the assembly.
 */
export async function loadMcpServerTools(options: LoadMcpServerToolsOptions): Promise<McpServerTools> {
  const { storage, user, serverId } = options;
  let server: Awaited<ReturnType<Storage['mcpServers']['get']>>;
  try {
    server = await storage.mcpServers.get(serverId);
  } catch (error) {
    return {
      ok: false,
      reason: 'mcp-server-failed',
      message: `MCP server ${serverId} cannot be read: ${messageOf(error)}`,
    };
  }
  if (server === undefined) {
    return { ok: false, reason: 'mcp-server-missing', message: `MCP server ${serverId} no longer exists.` };
  }
  const label = `MCP server "${server.name}"`;
  // An administrator who limited the server to some users: nobody else gets its tools, and an assembly without a
  // user (fail closed) neither. A server never restricted stays open to every assembly, as before.
  const access = await readMcpServerAccess(storage.settings, serverId).catch(() => ({ userIds: [] }));
  if (access !== undefined && !mayUseMcpServer(access, user?.id)) {
    return {
      ok: false,
      reason: 'mcp-access-denied',
      message: `${label} is not available to this user: an administrator limited who may use it.`,
    };
  }
  if (server.authType === 'oauth' && user === undefined) {
    return { ok: false, reason: 'mcp-auth-required', message: `${label} needs a signed-in user (OAuth).` };
  }
  if (server.authType === 'oauth' && user !== undefined) {
    // No tokens yet: the user must connect first; dialling the server would only end in a 401.
    const state = await storage.userSecrets
      .get({ kind: 'mcpOAuth', ownerId: serverId, userId: user.id })
      .catch(() => undefined);
    if (state?.tokens === undefined) {
      return {
        ok: false,
        reason: 'mcp-auth-required',
        message: `${label} needs the user to connect (OAuth).`,
      };
    }
  }
  const template = await mcpHeaderTemplateFor(storage, serverId, user).catch((error: unknown) => ({
    ok: false as const,
    message: `its per-user headers cannot be read: ${messageOf(error)}`,
  }));
  if (!template.ok)
    return { ok: false, reason: 'mcp-auth-required', message: `${label}: ${template.message}.` };
  const config = toMcpServerConfig(server, omitUndefined({ headerTemplate: template.headerTemplate }));
  const connectOptions: ConnectMcpServerOptions = {
    fetch: options.fetch,
    requestTimeoutMs: options.mcp.requestTimeoutMs ?? 20_000,
    toolCallTimeoutMs: options.mcp.toolCallTimeoutMs,
    requestHeaders: options.mcp.requestHeaders,
    fileStore: options.mcp.fileStore,
    logger: options.mcp.logger,
    signal: options.signal,
    ...(server.authType === 'oauth' && user !== undefined && options.mcp.oauthRedirectUrl !== undefined
      ? {
          oauth: {
            tokenStore: createStorageMcpTokenStore(storage),
            userId: user.id,
            redirectUrl: options.mcp.oauthRedirectUrl,
            ...omitUndefined({
              refreshLock: options.mcp.oauthRefreshLock,
              clientMetadataUrl: options.mcp.oauthClientMetadataUrl,
            }),
          },
        }
      : {}),
  };
  // The key holds hashes only: configuration and request headers may carry secrets.
  const key = [
    serverId,
    server.authType === 'oauth' ? (user?.id ?? '') : '',
    contentHash(config),
    contentHash(options.mcp.requestHeaders ?? {}),
  ].join(':');
  let connection: McpConnection | undefined;
  try {
    if (options.cache === undefined) {
      connection = await connectMcpServer(config, connectOptions);
      options.ownConnections.push(connection);
    } else {
      connection = await options.cache.mcpConnection(key, () => connectMcpServer(config, connectOptions));
    }
    const tools = await connection.tools();
    const approvals = await storage.mcpServers.listApprovals(serverId);
    return {
      ok: true,
      serverName: server.name,
      tools,
      approvals: new Map(approvals.map((approval) => [approval.toolName, approval])),
    };
  } catch (error) {
    // A connection that failed to list is not worth keeping for the next assembly.
    if (options.cache !== undefined && connection !== undefined) await options.cache.dropMcpConnection(key);
    if (McpAuthorizationRequiredError.isInstance(error)) {
      return {
        ok: false,
        reason: 'mcp-auth-required',
        message: `${label} needs the user to connect (OAuth).`,
      };
    }
    return {
      ok: false,
      reason: 'mcp-server-failed',
      message: `${label} is unavailable: ${messageOf(error)}`,
    };
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

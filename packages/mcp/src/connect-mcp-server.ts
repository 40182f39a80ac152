import type { Client, Tool as SdkTool } from '@modelcontextprotocol/client';
import type { FetchFunction, McpTransport } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import { createMcpTool, type McpCallToolResult, type McpTool } from './create-mcp-tool.ts';
import { createMcpTransport } from './create-mcp-transport.ts';
import { McpAuthorizationRequiredError } from './errors/mcp-authorization-required-error.ts';
import { McpConnectionError, type McpConnectionErrorCode } from './errors/mcp-connection-error.ts';
import { isMcpSdkError, loadMcpClientSdk } from './load-mcp-client-sdk.ts';
import { McpCallLogRouter } from './mcp-call-logs.ts';
import { connectFailure, isUnauthenticated } from './mcp-connect-failure.ts';
import type {
  ConnectMcpServerOptions,
  McpConnection,
  McpOAuthOptions,
  McpToolsChangedListener,
} from './mcp-connection.ts';
import { McpElicitationRouter, mcpElicitationCapabilities } from './mcp-elicitation.ts';
import { consoleMcpLogger, type McpLogger } from './mcp-logger.ts';
import { mcpOAuthConfigFingerprint } from './mcp-oauth-config-fingerprint.ts';
import type { McpProgress } from './mcp-progress.ts';
import type { McpServerConfig } from './mcp-server-config.ts';
import type { McpToolDescriptor } from './mcp-tool-descriptor.ts';
import { mergeMcpHeaders } from './merge-mcp-headers.ts';
import { renderMcpHeaderTemplates } from './render-mcp-header-templates.ts';
import { createServerHeaderFetch } from './server-header-fetch.ts';
import { StoreOAuthClientProvider } from './store-oauth-client-provider.ts';
import { toolDefinitionHash } from './tool-definition-hash.ts';

export type { ConnectMcpServerOptions, McpConnection, McpOAuthOptions, McpToolsChangedListener };

const clientInfo = { name: 'toolbus', version: '0.1.0' };
const logLevelMetaKey = 'io.modelcontextprotocol/logLevel';

/**
 * Connects to an MCP server over stdio, Streamable HTTP or HTTP+SSE (`auto`: Streamable HTTP, falling back to SSE
 * when the server answers 400/404/405), performs the handshake and returns the open connection. Every HTTP request,
 * OAuth's included, goes through `options.fetch`.
 */
export async function connectMcpServer(
  config: McpServerConfig,
  options: ConnectMcpServerOptions = {},
): Promise<McpConnection> {
  const auth = config.auth ?? { type: 'none' };
  const fail = (code: McpConnectionErrorCode, message: string, cause?: unknown) =>
    new McpConnectionError({ code, message, serverName: config.name, cause });
  let serverFetch: FetchFunction | undefined;
  let provider: StoreOAuthClientProvider | undefined;
  let missingCredentials: readonly string[] = [];
  let headerValues: readonly string[] = [];
  // What a server's logs must never carry back: the header values sent to it, a user's OAuth tokens, or a stdio
  // server's environment (an admin's API keys), which the caller of a relayed call may not be allowed to see.
  const logs = await McpCallLogRouter.create();
  if (config.transport.type !== 'stdio') {
    let url: URL;
    try {
      url = new URL(config.transport.url);
    } catch (error) {
      throw fail('mcp_invalid_config', `MCP server "${config.name}" has an invalid URL`, error);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw fail('mcp_invalid_config', `MCP server "${config.name}" URL must be http or https`);
    }
    if (options.fetch === undefined) {
      throw fail(
        'mcp_fetch_required',
        `MCP server "${config.name}" is reached over HTTP but no fetch was given`,
      );
    }
    if (auth.type === 'oauth') {
      if (options.oauth === undefined) {
        throw fail(
          'mcp_oauth_not_configured',
          `MCP server "${config.name}" needs OAuth but no token store was given`,
        );
      }
      provider = new StoreOAuthClientProvider({
        store: options.oauth.tokenStore,
        userId: options.oauth.userId,
        serverId: config.id,
        redirectUrl: options.oauth.redirectUrl,
        clientName: auth.clientName,
        scope: auth.scope,
        client: auth.client,
        onAuthorizationRequired: options.oauth.onAuthorizationRequired,
        refreshLock: options.oauth.refreshLock,
        clientMetadataUrl: options.oauth.clientMetadataUrl,
        configFingerprint: await mcpOAuthConfigFingerprint(config),
        onCredentials: (values) => logs.addSecrets(values),
      });
    }
    const layers = headerLayersOf(config, options.requestHeaders, options.logger ?? consoleMcpLogger);
    missingCredentials = layers.missing;
    const headers = layers.headers;
    headerValues = Object.values(headers);
    serverFetch = createServerHeaderFetch({ fetch: options.fetch, serverUrl: url, headers });
    if (provider !== undefined) serverFetch = provider.lockingRefreshes(serverFetch);
  }

  let stderrTail = '';
  // Set once the connection exists: the SDK calls it when the server says its tool list changed (a 2025-11-25
  // notification, or on 2026-07-28 an event on the `subscriptions/listen` stream the SDK opens for it).
  let toolsChanged: () => void = () => undefined;
  const elicitations = await McpElicitationRouter.create();
  logs.addSecrets(
    config.transport.type === 'stdio' ? Object.values(config.transport.env ?? {}) : headerValues,
  );
  // `legacy`: skip the `server/discover` probe and go straight to `initialize` (a restarted stdio server).
  const open = async (kind: McpTransport, prior?: 'legacy'): Promise<Client> => {
    const { Client } = await loadMcpClientSdk();
    const transport = await createMcpTransport({
      kind,
      config: config.transport,
      fetch: serverFetch,
      authProvider: provider,
      onStderr: (chunk) => {
        stderrTail = (stderrTail + chunk).slice(-2000);
      },
    });
    const client = new Client(clientInfo, {
      capabilities: { ...mcpElicitationCapabilities },
      // Probes with `server/discover` (2026-07-28) and falls back to the `initialize` handshake (2025-11-25 and
      // older), so servers on either revision work.
      versionNegotiation: { mode: 'auto' },
      listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => toolsChanged() } },
      // Bounded: a hostile server could page forever.
      listMaxPages: 100,
    });
    elicitations.register(client, config.name);
    logs.register(client);
    try {
      await client.connect(
        transport,
        omitUndefined({
          timeout: options.requestTimeoutMs ?? 60_000,
          signal: options.signal,
          prior: prior === undefined ? undefined : { kind: prior },
        }),
      );
    } catch (error) {
      await client.close().catch(() => undefined);
      // The probe runs on the session's own process; a legacy server that exits on the unknown request gets
      // exactly one restart, straight to the `initialize` handshake.
      if (prior === undefined && 'exitedOnItsOwn' in transport && transport.exitedOnItsOwn === true) {
        return open(kind, 'legacy');
      }
      throw error;
    }
    return client;
  };

  const kinds: McpTransport[] =
    config.transport.type === 'auto' ? ['streamable-http', 'sse'] : [config.transport.type];
  let client: Client | undefined;
  let kind: McpTransport = kinds[0] ?? 'streamable-http';
  for (const [index, candidate] of kinds.entries()) {
    try {
      kind = candidate;
      client = await open(candidate);
      break;
    } catch (error) {
      if (isMcpSdkError(error, 'UnauthorizedError') || McpAuthorizationRequiredError.isInstance(error)) {
        throw new McpAuthorizationRequiredError({
          serverName: config.name,
          authorizationUrl: provider?.lastAuthorizationUrl,
          cause: error,
        });
      }
      const fallBack =
        index < kinds.length - 1 &&
        isMcpSdkError(error, 'SdkHttpError') &&
        [400, 404, 405].includes(error.status);
      if (fallBack) continue;
      throw connectFailure(error, { config, oauth: provider !== undefined, missingCredentials, stderrTail });
    }
  }
  if (client === undefined)
    throw fail('mcp_connection_failed', `Could not connect to MCP server "${config.name}"`);
  const connection = createConnection({ client, config, kind, options, provider, elicitations, logs });
  toolsChanged = connection.toolsChanged;
  return connection.connection;
}

function createConnection(input: {
  readonly client: Client;
  readonly config: McpServerConfig;
  readonly kind: McpTransport;
  readonly options: ConnectMcpServerOptions;
  readonly provider: StoreOAuthClientProvider | undefined;
  readonly elicitations: McpElicitationRouter;
  readonly logs: McpCallLogRouter;
}): { readonly connection: McpConnection; readonly toolsChanged: () => void } {
  const { client, config, options, provider } = input;
  // The server may ask for (more) authorization mid-session (expired grant, scope step-up): say so in a typed way.
  const authorized = async <T>(operation: () => Promise<T>): Promise<T> => {
    try {
      return await operation();
    } catch (error) {
      if (provider === undefined && isUnauthenticated(error)) {
        throw new McpConnectionError({
          code: 'mcp_authentication_required',
          message: `MCP server "${config.name}" stopped accepting the request's authentication (HTTP 401); the user's credentials for it need to be renewed.`,
          serverName: config.name,
          cause: error,
        });
      }
      if (!isMcpSdkError(error, 'UnauthorizedError')) throw error;
      throw new McpAuthorizationRequiredError({
        serverName: config.name,
        authorizationUrl: provider?.lastAuthorizationUrl,
        cause: error,
      });
    }
  };
  const listeners = new Set<McpToolsChangedListener>();
  let descriptors: Promise<readonly McpToolDescriptor[]> | undefined;
  let tools: {
    readonly from: Promise<readonly McpToolDescriptor[]>;
    readonly tools: Promise<readonly McpTool[]>;
  } = { from: Promise.resolve([]), tools: Promise.resolve([]) };
  let generation = 0;

  const fetchAll = async (): Promise<readonly McpToolDescriptor[]> => {
    // Without a cursor the SDK walks every page itself (bounded by `listMaxPages`); toolbus keeps its own cache,
    // so the SDK's response cache is refreshed rather than served from.
    const result = await authorized(() =>
      client.listTools(undefined, { timeout: options.requestTimeoutMs ?? 60_000, cacheMode: 'refresh' }),
    );
    return result.tools.map(toDescriptor);
  };
  const listTools = (): Promise<readonly McpToolDescriptor[]> => {
    if (descriptors === undefined) {
      const pending = fetchAll();
      descriptors = pending;
      // A failed listing is not cached: the next call tries again.
      pending.catch(() => {
        if (descriptors === pending) descriptors = undefined;
      });
    }
    return descriptors;
  };
  const refreshTools = (): Promise<readonly McpToolDescriptor[]> => {
    descriptors = undefined;
    return listTools();
  };

  const toolsChanged = async () => {
    const mine = ++generation;
    try {
      const fresh = await refreshTools();
      // A newer notification superseded this refresh; its own listeners call will report.
      if (mine !== generation) return;
      for (const listener of listeners) {
        try {
          listener(fresh);
        } catch {
          // A listener's failure must not stop the others or the session.
        }
      }
    } catch {
      // The next listTools() call retries.
    }
  };

  const callTool: McpConnection['callTool'] = async (call) => {
    // A 2026-07-28 server logs only at a level the request names; a 2025-11-25 one ignores the key.
    const meta = call.logs && { _meta: { [logLevelMetaKey]: call.logs.level } };
    const result = await authorized(() =>
      input.logs.during(call.logs, () =>
        input.elicitations.during(call.onElicitation, () =>
          client.callTool(
            { name: call.name, arguments: { ...call.arguments }, ...meta },
            omitUndefined({
              timeout: options.toolCallTimeoutMs ?? 600_000,
              resetTimeoutOnProgress: true,
              // Always given: without it the SDK sends no progress token, the server sends no progress, and the
              // timeout is never extended however long a tool legitimately works.
              onprogress: (progress: McpProgress) => {
                try {
                  call.onProgress?.(progress);
                } catch {
                  // A listener's failure must not fail the call.
                }
              },
              signal: call.signal,
            }),
          ),
        ),
      ),
    );
    return result as McpCallToolResult;
  };

  const connection: McpConnection = {
    serverId: config.id,
    serverName: config.name,
    transport: input.kind,
    listTools,
    refreshTools,
    async tools() {
      const from = listTools();
      if (tools.from !== from) {
        const built = from.then((list) =>
          Promise.all(
            list.map(async (descriptor) =>
              createMcpTool({
                descriptor,
                serverId: config.id,
                serverName: config.name,
                definitionHash: await toolDefinitionHash(descriptor),
                call: (call) => callTool(call),
                fileStore: options.fileStore,
                maxResultChars: options.maxResultChars,
              }),
            ),
          ),
        );
        tools = { from, tools: built };
      }
      return tools.tools;
    },
    callTool,
    onToolsChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      listeners.clear();
      await client.close();
    },
  };
  return { connection, toolsChanged: () => void toolsChanged() };
}

function toDescriptor(tool: SdkTool): McpToolDescriptor {
  return omitUndefined({
    name: tool.name,
    description: tool.description ?? '',
    inputSchema: tool.inputSchema as McpToolDescriptor['inputSchema'],
    title: tool.title,
    outputSchema: tool.outputSchema as McpToolDescriptor['outputSchema'],
    annotations: tool.annotations as McpToolDescriptor['annotations'],
  });
}

/**
 * The headers of every request to an HTTP server, its layers merged (`mergeMcpHeaders`): request extras, the
 * connection's rendered headers, the per-user template; and the placeholders that had no value.
 */
function headerLayersOf(
  config: McpServerConfig,
  requestHeaders: Readonly<Record<string, string>> | undefined,
  logger: McpLogger,
): { headers: Record<string, string>; missing: string[] } {
  const auth = config.auth ?? { type: 'none' };
  const rendered =
    auth.type === 'headers'
      ? renderMcpHeaderTemplates(auth.headers, auth.credentials ?? {}, { logger })
      : undefined;
  const template =
    config.headerTemplate === undefined
      ? undefined
      : renderMcpHeaderTemplates(config.headerTemplate.headers, config.headerTemplate.values, { logger });
  const headers = mergeMcpHeaders(
    { requestHeaders, connectionHeaders: rendered?.headers, templateHeaders: template?.headers },
    { logger },
  );
  return { headers, missing: [...new Set([...(rendered?.missing ?? []), ...(template?.missing ?? [])])] };
}

// What an open MCP connection offers, and the options it is opened with: the contract callers program against,
// apart from how connectMcpServer builds it.
import type { FetchFunction, McpTransport } from '@toolbus/spec';
import type { McpCallToolResult, McpTool } from './create-mcp-tool.ts';
import type { McpCallLogListener } from './mcp-call-logs.ts';
import type { McpElicitationHandler } from './mcp-elicitation.ts';
import type { McpFileStore } from './mcp-file-store.ts';
import type { McpLogger } from './mcp-logger.ts';
import type { McpProgressListener } from './mcp-progress.ts';
import type { McpRefreshLock } from './mcp-refresh-lock.ts';
import type { McpTokenStore } from './mcp-token-store.ts';
import type { McpToolDescriptor } from './mcp-tool-descriptor.ts';

/** OAuth wiring for one user: whose tokens, where they live, where the user comes back to. */
export interface McpOAuthOptions {
  readonly tokenStore: McpTokenStore;
  readonly userId: string;
  /** The application's OAuth callback URL. */
  readonly redirectUrl: string;
  /** Called with the authorization URL when the user must authorize (also carried by the thrown error). */
  readonly onAuthorizationRequired?: (authorizationUrl: URL) => void | Promise<void>;
  /** Serialises token refreshes (default: within this process); replicas pass a lock they share. */
  readonly refreshLock?: McpRefreshLock | undefined;
  /**
   * The https URL of this application's Client ID Metadata Document (see `mcpClientMetadataDocument`): the client
   * id at authorization servers that advertise `client_id_metadata_document_supported`; the others get a dynamic
   * registration as before. Its `redirect_uris` must include `redirectUrl`.
   */
  readonly clientMetadataUrl?: string | undefined;
}

/** Options for {@link connectMcpServer}. */
export interface ConnectMcpServerOptions {
  /**
   * The fetch every HTTP request goes through (the application passes `createGuardedFetch(...)`); required for
   * HTTP transports: there is no fallback to the global fetch.
   */
  readonly fetch?: FetchFunction | undefined;
  /** Extra headers from the end user's request: lowest priority, filtered through the denylist. */
  readonly requestHeaders?: Readonly<Record<string, string>> | undefined;
  /** Required when the server's auth is OAuth (fail closed without it). */
  readonly oauth?: McpOAuthOptions | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Receives dropped-header warnings (names only); `console.warn` by default, so a drop is never silent. */
  readonly logger?: McpLogger | undefined;
  /** Keeps images, audio and blob resources of tool results. */
  readonly fileStore?: McpFileStore | undefined;
  /** Timeout of the handshake and `tools/list` (default 60 s). */
  readonly requestTimeoutMs?: number | undefined;
  /** Timeout of one `tools/call` (default 10 min; progress notifications reset it). */
  readonly toolCallTimeoutMs?: number | undefined;
  /** Cap on each tool result's model string (default 100,000 characters). */
  readonly maxResultChars?: number | undefined;
}

/** Called with the fresh list after the server announced `tools/list_changed`. */
export type McpToolsChangedListener = (tools: readonly McpToolDescriptor[]) => void;

/** An open session with one MCP server. */
export interface McpConnection {
  readonly serverId: string;
  readonly serverName: string;
  /** The transport actually in use (`auto` resolved). */
  readonly transport: McpTransport;
  /** The server's tools, fetched once and cached until the server says they changed. */
  listTools(): Promise<readonly McpToolDescriptor[]>;
  /** {@link listTools} as toolbus tools (same caching). */
  tools(): Promise<readonly McpTool[]>;
  /** Drops the cache and lists again. */
  refreshTools(): Promise<readonly McpToolDescriptor[]>;
  /** Sends `tools/call` with the server's own tool name; `isError` results are returned, not thrown. */
  callTool(options: {
    readonly name: string;
    readonly arguments: Readonly<Record<string, unknown>>;
    readonly signal?: AbortSignal;
    /** Receives the server's progress notifications; each one also restarts the call's timeout. */
    readonly onProgress?: McpProgressListener | undefined;
    /** Answers the questions the server asks during this call (elicitation); without it they are cancelled. */
    readonly onElicitation?: McpElicitationHandler | undefined;
    /** Receives the server's log messages during this call, from a level on; without it they are dropped. */
    readonly logs?: McpCallLogListener | undefined;
  }): Promise<McpCallToolResult>;
  /** Subscribes to list changes; returns the unsubscribe function. */
  onToolsChanged(listener: McpToolsChangedListener): () => void;
  close(): Promise<void>;
}

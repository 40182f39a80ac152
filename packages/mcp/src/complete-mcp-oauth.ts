import { type FetchFunction, omitUndefined } from '@toolbus/spec';
import { McpConnectionError } from './errors/mcp-connection-error.ts';
import { loadMcpClientSdk } from './load-mcp-client-sdk.ts';
import type { McpOAuthOptions } from './mcp-connection.ts';
import type { McpServerConfig } from './mcp-server-config.ts';
import { StoreOAuthClientProvider } from './store-oauth-client-provider.ts';

/** Options for {@link completeMcpOAuth}. */
export interface CompleteMcpOAuthOptions {
  /** The guarded fetch: the token request goes through it too. */
  readonly fetch: FetchFunction;
  readonly oauth: McpOAuthOptions;
  /** `code` from the callback's query. */
  readonly authorizationCode: string;
  /** `state` from the callback's query; must match the authorization in progress (CSRF). */
  readonly state: string;
  /**
   * `iss` from the callback's query (RFC 9207). When the authorization server advertises
   * `authorization_response_iss_parameter_supported`, it must be present and name the server the authorization began
   * with, else the code is never redeemed (mix-up defence).
   */
  readonly issuer?: string;
}

/**
 * Finishes an OAuth authorization from the application's callback: checks `state`, exchanges the code for tokens
 * (PKCE) and stores them for this user and server. Connect again afterwards.
 */
export async function completeMcpOAuth(
  config: McpServerConfig,
  options: CompleteMcpOAuthOptions,
): Promise<void> {
  if (config.transport.type === 'stdio' || config.auth?.type !== 'oauth') {
    throw new McpConnectionError({
      code: 'mcp_invalid_config',
      message: `MCP server "${config.name}" is not an OAuth server`,
      serverName: config.name,
    });
  }
  const record = await options.oauth.tokenStore.load(options.oauth.userId, config.id);
  if (record?.pendingState === undefined || record.pendingState !== options.state) {
    throw new McpConnectionError({
      code: 'mcp_oauth_state_mismatch',
      message: `OAuth callback for MCP server "${config.name}" does not match an authorization in progress`,
      serverName: config.name,
    });
  }
  const provider = new StoreOAuthClientProvider({
    store: options.oauth.tokenStore,
    userId: options.oauth.userId,
    serverId: config.id,
    redirectUrl: options.oauth.redirectUrl,
    clientName: config.auth.clientName,
    scope: config.auth.scope,
    client: config.auth.client,
  });
  const { auth } = await loadMcpClientSdk();
  const result = await auth(provider, {
    serverUrl: config.transport.url,
    authorizationCode: options.authorizationCode,
    ...omitUndefined({ iss: options.issuer }),
    fetchFn: options.fetch,
  });
  if (result !== 'AUTHORIZED') {
    throw new McpConnectionError({
      code: 'mcp_connection_failed',
      message: `OAuth code exchange for MCP server "${config.name}" did not authorize`,
      serverName: config.name,
    });
  }
}

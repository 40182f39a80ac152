// Takes one user through the OAuth flow against the loopback servers (connect → authorization URL → the user's
// browser approves → callback completes), leaving the user's tokens in the given store.
import assert from 'node:assert/strict';
import type { FetchFunction } from '@toolbus/spec';
import { completeMcpOAuth } from '../complete-mcp-oauth.ts';
import { connectMcpServer, type McpOAuthOptions } from '../connect-mcp-server.ts';
import { McpAuthorizationRequiredError } from '../errors/mcp-authorization-required-error.ts';
import type { McpServerConfig } from '../mcp-server-config.ts';
import type { LoopbackTool } from '../testing/loopback-mcp-server.ts';

/** The one tool the OAuth tests call: it answers only an authorized request. */
export const whoamiTool: LoopbackTool = {
  tool: { name: 'whoami', description: 'Says who you are', inputSchema: { type: 'object', properties: {} } },
  call: () => ({ content: [{ type: 'text', text: 'you are authorized' }] }),
};

/** What {@link whoamiTool} answers. */
export const whoamiAnswer = [{ type: 'text', text: 'you are authorized' }];

/** The protected loopback MCP server's config under `id`, with OAuth auth. */
export function loopbackOAuthConfig(mcpUrl: string, id = 'protected'): McpServerConfig {
  return {
    id,
    name: 'protected',
    transport: { type: 'streamable-http', url: mcpUrl },
    auth: { type: 'oauth', clientName: 'toolbus test' },
  };
}

/** Authorizes `oauth.userId` on `config`'s server; the tokens end up in `oauth.tokenStore`. */
export async function authorizeLoopbackUser(
  config: McpServerConfig,
  options: { readonly fetch: FetchFunction; readonly oauth: McpOAuthOptions },
): Promise<void> {
  const required = await connectMcpServer(config, options).then(
    () => assert.fail('connected without authorization'),
    (error: unknown) => error,
  );
  assert.ok(McpAuthorizationRequiredError.isInstance(required) && required.authorizationUrl);
  // The user's browser: the loopback authorization server approves at once and redirects to the callback.
  const response = await fetch(required.authorizationUrl, { redirect: 'manual' });
  assert.equal(response.status, 302);
  const location = new URL(response.headers.get('location') ?? '');
  await completeMcpOAuth(config, {
    fetch: options.fetch,
    oauth: options.oauth,
    authorizationCode: location.searchParams.get('code') ?? '',
    state: location.searchParams.get('state') ?? '',
  });
}

/**
 * `fetch` with a slow token endpoint: a refresh request waits 300 ms, so a second connection's 401 certainly
 * arrives while the first one refreshes (the refresh lock's race, made certain).
 */
export const slowRefreshFetch: typeof fetch = async (input, init) => {
  if (String(init?.body ?? '').includes('grant_type=refresh_token')) {
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  return fetch(input, init);
};

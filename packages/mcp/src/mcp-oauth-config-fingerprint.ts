import type { McpServerConfig } from './mcp-server-config.ts';

/**
 * What an authorization in progress is bound to: the server's transport (its URL) and OAuth settings (scope,
 * client name, pre-registered client) as they were when the authorization began, hashed (the client secret is
 * among them). An administrator who changes either while a user is at the authorization server makes the callback
 * refused: the code was obtained for a configuration that no longer exists.
 */
export async function mcpOAuthConfigFingerprint(config: McpServerConfig): Promise<string> {
  const auth = config.auth?.type === 'oauth' ? config.auth : undefined;
  const bound = {
    id: config.id,
    transport: config.transport,
    scope: auth?.scope ?? null,
    clientName: auth?.clientName ?? null,
    client: auth?.client === undefined ? null : [auth.client.id, auth.client.secret ?? null],
  };
  // Web Crypto, not node:crypto: the package's root stays free of Node-only modules.
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(JSON.stringify(bound)));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

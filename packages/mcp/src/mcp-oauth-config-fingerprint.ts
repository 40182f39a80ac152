import { createHash } from 'node:crypto';
import type { McpServerConfig } from './mcp-server-config.ts';

/**
 * What an authorization in progress is bound to: the server's transport (its URL) and OAuth settings (scope,
 * client name, pre-registered client) as they were when the authorization began, hashed (the client secret is
 * among them). An administrator who changes either while a user is at the authorization server makes the callback
 * refused: the code was obtained for a configuration that no longer exists.
 */
export function mcpOAuthConfigFingerprint(config: McpServerConfig): string {
  const auth = config.auth?.type === 'oauth' ? config.auth : undefined;
  const bound = {
    id: config.id,
    transport: config.transport,
    scope: auth?.scope ?? null,
    clientName: auth?.clientName ?? null,
    client: auth?.client === undefined ? null : [auth.client.id, auth.client.secret ?? null],
  };
  return createHash('sha256').update(JSON.stringify(bound)).digest('hex');
}

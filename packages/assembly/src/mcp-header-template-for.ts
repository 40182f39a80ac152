import { type McpServerConfig, mcpBuiltInValues } from '@toolbus/mcp';
import { omitUndefined } from '@toolbus/spec';
import { type McpServer, readMcpHeaderTemplate, type Storage, type User } from '@toolbus/storage';
import { toMcpServerConfig } from './to-mcp-server-config.ts';

/** A server's header template filled for one user, nothing (no template), or why it cannot be. */
export type McpHeaderTemplateFor =
  | { readonly ok: true; readonly headerTemplate?: NonNullable<McpServerConfig['headerTemplate']> }
  | { readonly ok: false; readonly message: string };

/**
 * The admin's header template of `serverId` with the values that fill it for `user`: the user's own stored values,
 * and the built-ins (`{user_email}`, `{user_id}`, `{user_name}`), which win, so a stored value can never stand in
 * for another user's address. A template needs a user: without one (fail closed) the server cannot be used.
 * The one owner for chat assembly and the egress proxy, so both send exactly the same headers.
 */
export async function mcpHeaderTemplateFor(
  storage: Pick<Storage, 'settings' | 'userSecrets'>,
  serverId: string,
  user: Pick<User, 'id' | 'email' | 'name'> | undefined,
): Promise<McpHeaderTemplateFor> {
  const headers = await readMcpHeaderTemplate(storage.settings, serverId);
  if (headers === undefined || Object.keys(headers).length === 0) return { ok: true };
  if (user === undefined) {
    return { ok: false, message: 'its headers are filled per user, and there is no signed-in user' };
  }
  const stored = await storage.userSecrets.get({
    kind: 'mcpHeaderValues',
    ownerId: serverId,
    userId: user.id,
  });
  return { ok: true, headerTemplate: { headers, values: { ...stored, ...mcpBuiltInValues(user) } } };
}

/**
 * The MCP client's configuration of a stored server for `user`: {@link toMcpServerConfig} with the per-user template
 * filled, so every place that dials a stored server on someone's behalf (chat, the admin's tool review, the OAuth
 * connect flow, the CLI) sends the same headers; or why it cannot be dialled for them.
 */
export async function mcpServerConfigFor(
  storage: Pick<Storage, 'settings' | 'userSecrets'>,
  server: McpServer,
  user: Pick<User, 'id' | 'email' | 'name'> | undefined,
): Promise<
  { readonly ok: true; readonly config: McpServerConfig } | { readonly ok: false; readonly message: string }
> {
  const template = await mcpHeaderTemplateFor(storage, server.id, user);
  if (!template.ok) return template;
  return {
    ok: true,
    config: toMcpServerConfig(server, omitUndefined({ headerTemplate: template.headerTemplate })),
  };
}

import { createStorageMcpTokenStore, mcpHeaderTemplateFor, toMcpServerConfig } from '@toolbus/assembly';
import type { EgressIdentity, EgressMcpServer } from '@toolbus/egress';
import { mergeMcpHeaders, renderMcpHeaderTemplates, StoreOAuthClientProvider } from '@toolbus/mcp';
import { omitUndefined } from '@toolbus/spec';
import { offeredToSandboxes, readMcpServerAccess, type Storage } from '@toolbus/storage';

/**
 * The deployment's MCP servers that sandboxed code can reach: every configured server with an HTTP endpoint (a
 * stdio server has no URL). No per-tool policies are stored, so every `tools/call` asks for approval.
 */
export async function storageEgressMcpServers(storage: Storage): Promise<EgressMcpServer[]> {
  const servers = await storage.mcpServers.list();
  const reachable: EgressMcpServer[] = [];
  for (const server of servers) {
    if (server.endpoint.transport === 'stdio') continue;
    reachable.push({ id: server.id, name: server.name, url: server.endpoint.url });
  }
  return reachable;
}

/**
 * The MCP servers `identity`'s sandbox is offered (its catalogue): those an administrator made available to
 * sandboxes, and only to users with access to them. A request to any other configured server's origin is still
 * claimed (by {@link storageEgressMcpServers}, the resolver's list) and refused, never forwarded bare.
 */
export async function storageSandboxMcpServers(
  storage: Storage,
  identity: EgressIdentity,
): Promise<EgressMcpServer[]> {
  const offered: EgressMcpServer[] = [];
  for (const server of await storageEgressMcpServers(storage)) {
    if (offeredToSandboxes(await readMcpServerAccess(storage.settings, server.id), identity.userId)) {
      offered.push(server);
    }
  }
  return offered;
}

/**
 * The headers that authenticate `identity`'s user to an MCP server, built exactly as toolbus's own MCP client
 * builds them: stored header templates (and the admin's API key) rendered, the per-user template filled with the
 * user's own values (which wins), or the user's own OAuth access token
 * (never another user's; a request without a user gets none). An empty map for a server that needs no credential
 * (reachable, nothing added); undefined when the user is not connected.
 */
export async function storageMcpCredentials(
  storage: Storage,
  serverId: string,
  identity: EgressIdentity,
): Promise<Readonly<Record<string, string>> | undefined> {
  const server = await storage.mcpServers.get(serverId);
  if (server === undefined) return undefined;
  const user = identity.userId === undefined ? undefined : await storage.users.get(identity.userId);
  const template = await mcpHeaderTemplateFor(storage, serverId, user);
  if (!template.ok) return undefined;
  const templateHeaders =
    template.headerTemplate === undefined
      ? undefined
      : renderMcpHeaderTemplates(template.headerTemplate.headers, template.headerTemplate.values).headers;
  // The same layers and deny list as the MCP client's: the template wins over the connection's headers, and the
  // OAuth token over both.
  const withTemplate = (headers: Record<string, string>, oauthAuthorization?: string) =>
    templateHeaders === undefined
      ? headers
      : mergeMcpHeaders(omitUndefined({ connectionHeaders: headers, templateHeaders, oauthAuthorization }));
  const auth = toMcpServerConfig(server).auth;
  if (auth === undefined || auth.type === 'none') return withTemplate({});
  if (auth.type === 'headers') {
    const headers = withTemplate(renderMcpHeaderTemplates(auth.headers, auth.credentials ?? {}).headers);
    return Object.keys(headers).length === 0 ? undefined : headers;
  }
  if (identity.userId === undefined) return undefined;
  // The same reader the MCP client uses: expired tokens without a refresh token, or unsafe header bytes, are none.
  const provider = new StoreOAuthClientProvider({
    store: createStorageMcpTokenStore(storage),
    userId: identity.userId,
    serverId,
    // Never used: reading tokens starts no authorization flow.
    redirectUrl: 'http://127.0.0.1/unused',
  });
  const tokens = await provider.tokens();
  if (tokens === undefined) return undefined;
  const type = (tokens.token_type ?? 'Bearer').toLowerCase() === 'bearer' ? 'Bearer' : tokens.token_type;
  const authorization = `${type} ${tokens.access_token}`;
  return withTemplate({ Authorization: authorization }, authorization);
}

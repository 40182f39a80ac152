import type { CredentialResolver } from '../decision/credential-resolver.ts';
import { CredentialUnavailableError } from '../decision/credential-unavailable-error.ts';
import type { EgressMcpServer } from '../decision/egress-catalogue.ts';
import type { EgressIdentity } from '../decision/egress-request.ts';
import { originKey } from '../decision/match-mcp-server.ts';

/** Options for {@link createMcpServerResolver}. */
export interface McpServerResolverOptions {
  /** Every MCP server of the deployment, whoever can use it: a host claimed here never leaves bare. */
  readonly allServers: () => Promise<readonly EgressMcpServer[]> | readonly EgressMcpServer[];
  /**
   * The headers that authenticate `identity`'s user to `server`: an empty map when the server needs none (the
   * request passes, nothing added); undefined when the user is not connected.
   */
  readonly credentialsFor: (
    server: EgressMcpServer,
    identity: EgressIdentity,
  ) => Promise<Readonly<Record<string, string>> | undefined> | Readonly<Record<string, string>> | undefined;
}

/**
 * Adds MCP server credentials. It claims every request to an MCP server's origin (unless a connected app owns
 * it), and then fails closed: a tool call must have passed the approval gate for exactly this server, an ungated
 * request must be protocol plumbing, and an ambiguous or off-prefix path is refused.
 */
export function createMcpServerResolver(options: McpServerResolverOptions): CredentialResolver {
  return {
    name: 'mcp_server',
    async claims(request) {
      if (request.app !== undefined) return false;
      const origin = originKey(request.url);
      const servers = await options.allServers();
      return servers.some((server) => originKey(new URL(server.url)) === origin);
    },
    async resolve(request) {
      const match = request.mcp?.match;
      if (match === undefined || match.kind === 'none') {
        throw new CredentialUnavailableError(
          'This MCP server is not available to this user; ask the user or an administrator to give access.',
        );
      }
      if (match.kind === 'ambiguous') {
        throw new CredentialUnavailableError(
          'Two MCP servers are configured with the same URL, so the proxy cannot tell which credential to use (duplicate MCP server URL).',
        );
      }
      if (match.kind === 'outside_prefix') {
        throw new CredentialUnavailableError('Only the configured MCP endpoint is reachable on this host.');
      }
      if (request.mcp?.gated !== true && request.mcp?.body.kind !== 'plumbing') {
        throw new CredentialUnavailableError('This MCP request could not be verified by the approval gate.');
      }
      const headers = await options.credentialsFor(match.server, request.identity);
      if (headers === undefined) {
        throw new CredentialUnavailableError(
          `The MCP server ${match.server.name} is not connected; ask the user or an administrator to connect it.`,
        );
      }
      return headers;
    },
  };
}

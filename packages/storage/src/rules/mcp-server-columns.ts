import type { McpAuthType, McpServer, McpTransport, NewMcpServer } from '../mcp-server.ts';
import type { SecretBox } from '../secret-box.ts';
import { checkMcpEndpoint } from './check-mcp-endpoint.ts';

/** An MCP server as columns, secrets sealed (headers, API key, stdio environment), args as JSON text. */
export interface McpServerColumns {
  readonly name: string;
  readonly transport: McpTransport;
  readonly url: string | null;
  readonly command: string | null;
  readonly argsJson: string;
  readonly authType: McpAuthType;
  readonly headersSecret: string | null;
  readonly apiKeySecret: string | null;
  readonly environmentSecret: string | null;
}

// Each sealed value is bound to its table, column and row: a value copied elsewhere does not open.
const headersContext = (id: string) => `mcp_servers.headers_secret:${id}`;
const apiKeyContext = (id: string) => `mcp_servers.api_key_secret:${id}`;
const environmentContext = (id: string) => `mcp_servers.environment_secret:${id}`;

/** The columns of server `id`, endpoint checked (`invalid_input`) and secrets sealed. */
export function mcpServerColumns(secrets: SecretBox, id: string, server: NewMcpServer): McpServerColumns {
  const endpoint = checkMcpEndpoint(server.endpoint);
  const headers = server.headers ?? {};
  return {
    name: server.name,
    transport: endpoint.transport,
    url: endpoint.transport === 'stdio' ? null : endpoint.url,
    command: endpoint.transport === 'stdio' ? endpoint.command : null,
    argsJson: JSON.stringify(endpoint.transport === 'stdio' ? endpoint.args : []),
    authType: server.authType,
    headersSecret:
      Object.keys(headers).length > 0 ? secrets.seal(JSON.stringify(headers), headersContext(id)) : null,
    apiKeySecret: server.apiKey === undefined ? null : secrets.seal(server.apiKey, apiKeyContext(id)),
    environmentSecret:
      endpoint.transport === 'stdio' &&
      endpoint.environment !== undefined &&
      Object.keys(endpoint.environment).length > 0
        ? secrets.seal(JSON.stringify(endpoint.environment), environmentContext(id))
        : null,
  };
}

/** The server stored in these columns, secrets opened (`secret_undecryptable` when they do not open). */
export function mcpServerFromColumns(
  secrets: SecretBox,
  row: McpServerColumns & { readonly id: string; readonly createdAt: string },
): McpServer {
  return {
    id: row.id,
    name: row.name,
    endpoint:
      row.transport === 'stdio'
        ? {
            transport: 'stdio',
            command: row.command ?? '',
            args: JSON.parse(row.argsJson) as string[],
            ...(row.environmentSecret === null
              ? {}
              : {
                  environment: JSON.parse(
                    secrets.open(row.environmentSecret, environmentContext(row.id)),
                  ) as Record<string, string>,
                }),
          }
        : { transport: row.transport, url: row.url ?? '' },
    authType: row.authType,
    headers:
      row.headersSecret === null
        ? {}
        : (JSON.parse(secrets.open(row.headersSecret, headersContext(row.id))) as Record<string, string>),
    apiKey: row.apiKeySecret === null ? null : secrets.open(row.apiKeySecret, apiKeyContext(row.id)),
    createdAt: row.createdAt,
  };
}

import type { McpServerConfig } from '@toolbus/mcp';
import { omitUndefined } from '@toolbus/spec';
import type { McpServer } from '@toolbus/storage';

/**
 * The MCP client's configuration for a stored server. Stored headers are templates (`{name}` placeholders, see
 * `renderMcpHeaderTemplates`). API-key auth becomes an `Authorization: Bearer {api_key}` header on top of them
 * (the key wins over a stored header of the same name, case-insensitively), with the key passed as the value of
 * `{api_key}`, so braces inside the key are sent as they are, never read as placeholders. `extras.headerTemplate`
 * is the per-user template (see `mcpHeaderTemplateFor`).
 */
export function toMcpServerConfig(
  server: McpServer,
  extras: Pick<McpServerConfig, 'headerTemplate'> = {},
): McpServerConfig {
  const transport: McpServerConfig['transport'] =
    server.endpoint.transport === 'stdio'
      ? {
          type: 'stdio',
          command: server.endpoint.command,
          args: server.endpoint.args,
          ...omitUndefined({ env: server.endpoint.environment }),
        }
      : { type: server.endpoint.transport, url: server.endpoint.url };
  return {
    id: server.id,
    name: server.name,
    transport,
    auth: toAuth(server),
    ...omitUndefined({ headerTemplate: extras.headerTemplate }),
  };
}

function toAuth(server: McpServer): NonNullable<McpServerConfig['auth']> {
  switch (server.authType) {
    case 'none':
      return { type: 'none' };
    case 'oauth':
      return { type: 'oauth' };
    case 'headers':
      return { type: 'headers', headers: server.headers };
    case 'api-key': {
      const headers = Object.fromEntries(
        Object.entries(server.headers).filter(([name]) => name.toLowerCase() !== 'authorization'),
      );
      if (server.apiKey === null) return { type: 'headers', headers };
      headers.Authorization = 'Bearer {api_key}';
      return { type: 'headers', headers, credentials: { api_key: server.apiKey } };
    }
  }
}

import type { McpUserCredentialStore } from '../mcp-user-credentials.ts';
import { sealedPerUser } from '../sql/sealed-per-user.ts';
import type { StoreContext } from '../sql/store-context.ts';

/** Per-user MCP header values, sealed per server and user. */
export function createMcpUserCredentialStore(context: StoreContext): McpUserCredentialStore {
  const values = sealedPerUser<Record<string, string>>(
    context,
    'mcp_user_credentials',
    'Saving MCP credentials',
  );
  return {
    set: ({ serverId, userId, values: given }) => values.set(serverId, userId, given),
    get: ({ serverId, userId }) => values.get(serverId, userId),
    delete: ({ serverId, userId }) => values.delete(serverId, userId),
  };
}

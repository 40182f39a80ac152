import type { McpOAuthRecord, McpTokenStore } from '@toolbus/mcp';
import type { Storage } from '@toolbus/storage';

/** The MCP client's OAuth token store over toolbus storage: one encrypted record per user per server. */
export function createStorageMcpTokenStore(storage: Storage): McpTokenStore {
  return {
    async load(userId, serverId) {
      return (await storage.userSecrets.get({ kind: 'mcpOAuth', ownerId: serverId, userId })) as
        | McpOAuthRecord
        | undefined;
    },
    async save(userId, serverId, record) {
      // A record is plain JSON (the SDK's token and client shapes); storage seals it as one value.
      await storage.userSecrets.set({
        kind: 'mcpOAuth',
        ownerId: serverId,
        userId,
        value: JSON.parse(JSON.stringify(record)) as Record<string, unknown>,
      });
    },
    async clear(userId, serverId) {
      await storage.userSecrets.delete({ kind: 'mcpOAuth', ownerId: serverId, userId });
    },
  };
}

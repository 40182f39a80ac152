import type { McpUserCredentialStore } from '../mcp-user-credentials.ts';
import { type SqliteContext, withConstraintErrors } from './sqlite-context.ts';

/** The sealed secret's context: table, column, server and user, so a value copied to another row does not open. */
export function mcpUserCredentialsContext(serverId: string, userId: string): string {
  return `mcp_user_credentials.values_secret:${serverId}:${userId}`;
}

/** Per-user MCP header values over SQLite, sealed per server and user. */
export function createSqliteMcpUserCredentialStore(context: SqliteContext): McpUserCredentialStore {
  const { database, secrets } = context;
  const upsert =
    database.prepare(`INSERT INTO mcp_user_credentials (server_id, user_id, values_secret, updated_at)
    VALUES (?, ?, ?, ?) ON CONFLICT (server_id, user_id) DO UPDATE SET
    values_secret = excluded.values_secret, updated_at = excluded.updated_at`);
  const select = database.prepare(
    'SELECT values_secret FROM mcp_user_credentials WHERE server_id = ? AND user_id = ?',
  );
  const remove = database.prepare('DELETE FROM mcp_user_credentials WHERE server_id = ? AND user_id = ?');
  return {
    async set({ serverId, userId, values }) {
      const sealed = secrets.seal(JSON.stringify(values), mcpUserCredentialsContext(serverId, userId));
      withConstraintErrors('Saving MCP credentials', () =>
        upsert.run(serverId, userId, sealed, context.now()),
      );
    },
    async get({ serverId, userId }) {
      const row = select.get(serverId, userId) as { values_secret: string } | undefined;
      if (row === undefined) return undefined;
      const opened = secrets.open(row.values_secret, mcpUserCredentialsContext(serverId, userId));
      return JSON.parse(opened) as Record<string, string>;
    },
    async delete({ serverId, userId }) {
      return Number(remove.run(serverId, userId).changes) > 0;
    },
  };
}

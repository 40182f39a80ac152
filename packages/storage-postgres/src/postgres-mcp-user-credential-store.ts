import type { McpUserCredentialStore } from '@toolbus/storage';
import type { PostgresContext } from './postgres-context.ts';
import { withConstraintErrors } from './postgres-context.ts';

/** As the SQLite store's: table, column, server and user, so a value copied to another row does not open. */
const sealContext = (serverId: string, userId: string) =>
  `mcp_user_credentials.values_secret:${serverId}:${userId}`;

/** Per-user MCP header values over PostgreSQL, sealed per server and user. */
export function createPostgresMcpUserCredentialStore(context: PostgresContext): McpUserCredentialStore {
  const { pool, secrets } = context;
  return {
    async set({ serverId, userId, values }) {
      const sealed = secrets.seal(JSON.stringify(values), sealContext(serverId, userId));
      await withConstraintErrors('Saving MCP credentials', () =>
        pool.query(
          `INSERT INTO mcp_user_credentials (server_id, user_id, values_secret, updated_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (server_id, user_id) DO UPDATE SET
             values_secret = excluded.values_secret, updated_at = excluded.updated_at`,
          [serverId, userId, sealed, context.now()],
        ),
      );
    },
    async get({ serverId, userId }) {
      const { rows } = await pool.query<{ values_secret: string }>(
        'SELECT values_secret FROM mcp_user_credentials WHERE server_id = $1 AND user_id = $2',
        [serverId, userId],
      );
      if (!rows[0]) return undefined;
      return JSON.parse(secrets.open(rows[0].values_secret, sealContext(serverId, userId))) as Record<
        string,
        string
      >;
    },
    async delete({ serverId, userId }) {
      const result = await pool.query(
        'DELETE FROM mcp_user_credentials WHERE server_id = $1 AND user_id = $2',
        [serverId, userId],
      );
      return (result.rowCount ?? 0) > 0;
    },
  };
}

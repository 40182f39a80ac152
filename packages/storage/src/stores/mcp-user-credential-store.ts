import type { McpUserCredentialStore } from '../mcp-user-credentials.ts';
import { changed, type StoreContext, withConstraintErrors } from '../sql/store-context.ts';

/** The sealed secret's context: table, column, server and user, so a value copied to another row does not open. */
function sealContext(serverId: string, userId: string): string {
  return `mcp_user_credentials.values_secret:${serverId}:${userId}`;
}

/** Per-user MCP header values, sealed per server and user. */
export function createMcpUserCredentialStore(context: StoreContext): McpUserCredentialStore {
  const { db, secrets } = context;
  return {
    async set({ serverId, userId, values }) {
      const values_secret = secrets.seal(JSON.stringify(values), sealContext(serverId, userId));
      const updated_at = context.now();
      await withConstraintErrors('Saving MCP credentials', () =>
        db
          .insertInto('mcp_user_credentials')
          .values({ server_id: serverId, user_id: userId, values_secret, updated_at })
          .onConflict((conflict) =>
            conflict.columns(['server_id', 'user_id']).doUpdateSet({ values_secret, updated_at }),
          )
          .execute(),
      );
    },
    async get({ serverId, userId }) {
      const row = await db
        .selectFrom('mcp_user_credentials')
        .select('values_secret')
        .where('server_id', '=', serverId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      if (row === undefined) return undefined;
      return JSON.parse(secrets.open(row.values_secret, sealContext(serverId, userId))) as Record<
        string,
        string
      >;
    },
    async delete({ serverId, userId }) {
      const result = await db
        .deleteFrom('mcp_user_credentials')
        .where('server_id', '=', serverId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return changed(result) > 0;
    },
  };
}

import type { McpAuthType, McpOAuthState, McpServer, McpTransport, NewMcpServer } from '../mcp-server.ts';
import { mcpServerColumns, mcpServerFromColumns } from '../rules/mcp-server-columns.ts';
import { changed, notFound, type StoreContext, withConstraintErrors } from '../sql/store-context.ts';
import { MAX_PENDING_MCP_AUTHORIZATIONS_PER_USER, type McpServerStore } from '../storage.ts';

const serverColumns = [
  'id',
  'name',
  'transport',
  'url',
  'command',
  'args_json as argsJson',
  'auth_type as authType',
  'headers_secret as headersSecret',
  'api_key_secret as apiKeySecret',
  'environment_secret as environmentSecret',
  'created_at as createdAt',
] as const;

const pendingColumns = [
  'state_hash as stateHash',
  'server_id as serverId',
  'user_id as userId',
  'redirect_url as redirectUrl',
  'return_to as returnTo',
  'browser_hash as browserHash',
  'created_at as createdAt',
  'expires_at as expiresAt',
] as const;

const approvalColumns = [
  'server_id as serverId',
  'tool_name as toolName',
  'definition_hash as definitionHash',
  'approved_by as approvedBy',
  'approved_at as approvedAt',
] as const;

/** MCP servers, per-user OAuth state, tool approvals and pending authorizations; headers, API keys and OAuth state sealed. */
export function createMcpServerStore(context: StoreContext): McpServerStore {
  const { db, secrets } = context;
  const row = (id: string, server: NewMcpServer) => {
    const sealed = mcpServerColumns(secrets, id, server);
    return {
      name: sealed.name,
      transport: sealed.transport,
      url: sealed.url,
      command: sealed.command,
      args_json: sealed.argsJson,
      auth_type: sealed.authType,
      headers_secret: sealed.headersSecret,
      api_key_secret: sealed.apiKeySecret,
      environment_secret: sealed.environmentSecret,
    };
  };
  const toServer = (columns: { transport: string; authType: string }): McpServer =>
    mcpServerFromColumns(
      secrets,
      columns as Parameters<typeof mcpServerFromColumns>[1] & {
        transport: McpTransport;
        authType: McpAuthType;
      },
    );
  const servers = () => db.selectFrom('mcp_servers').select(serverColumns);
  return {
    async create(server) {
      const id = context.newId();
      const created = await withConstraintErrors('Creating an MCP server', () =>
        db
          .insertInto('mcp_servers')
          .values({ id, ...row(id, server), created_at: context.now() })
          .returning(serverColumns)
          .executeTakeFirstOrThrow(),
      );
      return toServer(created);
    },
    async get(id) {
      const found = await servers().where('id', '=', id).executeTakeFirst();
      return found && toServer(found);
    },
    async list() {
      return (await servers().orderBy(context.byteOrder('name')).execute()).map(toServer);
    },
    async update(id, server) {
      const updated = await withConstraintErrors('Updating an MCP server', () =>
        db
          .updateTable('mcp_servers')
          .set(row(id, server))
          .where('id', '=', id)
          .returning(serverColumns)
          .executeTakeFirst(),
      );
      if (updated === undefined) throw notFound('MCP server', id);
      return toServer(updated);
    },
    async delete(id) {
      return changed(await db.deleteFrom('mcp_servers').where('id', '=', id).executeTakeFirst()) > 0;
    },
    ...authorizationMethods(context),
  };
}

const oauthContext = (serverId: string, userId: string) =>
  `mcp_oauth_states.state_secret:${serverId}:${userId}`;
const ofUser = (serverId: string, userId: string) => ({ server_id: serverId, user_id: userId });

/** Per-user OAuth state (sealed), tool approvals and pending authorizations of the MCP servers. */
function authorizationMethods(
  context: StoreContext,
): Omit<McpServerStore, 'create' | 'get' | 'list' | 'update' | 'delete'> {
  const { db, secrets } = context;
  return {
    async getOAuthState({ serverId, userId }) {
      const found = await db
        .selectFrom('mcp_oauth_states')
        .select('state_secret')
        .where('server_id', '=', serverId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return (
        found &&
        (JSON.parse(secrets.open(found.state_secret, oauthContext(serverId, userId))) as McpOAuthState)
      );
    },
    async saveOAuthState({ serverId, userId, state }) {
      const values = {
        state_secret: secrets.seal(JSON.stringify(state), oauthContext(serverId, userId)),
        updated_at: context.now(),
      };
      await withConstraintErrors('Saving MCP OAuth state', () =>
        db
          .insertInto('mcp_oauth_states')
          .values({ ...ofUser(serverId, userId), ...values })
          .onConflict((conflict) => conflict.columns(['server_id', 'user_id']).doUpdateSet(values))
          .execute(),
      );
    },
    async deleteOAuthState({ serverId, userId }) {
      const result = await db
        .deleteFrom('mcp_oauth_states')
        .where('server_id', '=', serverId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return changed(result) > 0;
    },
    async approveTool(approval) {
      const values = {
        definition_hash: approval.definitionHash,
        approved_by: approval.approvedBy,
        approved_at: context.now(),
      };
      await withConstraintErrors('Approving an MCP tool', () =>
        db
          .insertInto('mcp_tool_approvals')
          .values({ server_id: approval.serverId, tool_name: approval.toolName, ...values })
          .onConflict((conflict) => conflict.columns(['server_id', 'tool_name']).doUpdateSet(values))
          .execute(),
      );
      return { ...approval, approvedAt: values.approved_at };
    },
    async listApprovals(serverId) {
      return db
        .selectFrom('mcp_tool_approvals')
        .select(approvalColumns)
        .where('server_id', '=', serverId)
        .orderBy(context.byteOrder('tool_name'))
        .execute();
    },
    async revokeApproval({ serverId, toolName }) {
      const result = await db
        .deleteFrom('mcp_tool_approvals')
        .where('server_id', '=', serverId)
        .where('tool_name', '=', toolName)
        .executeTakeFirst();
      return changed(result) > 0;
    },
    async savePendingAuthorization(pending) {
      const now = context.now();
      await context.transaction(async (trx) => {
        await trx.deleteFrom('mcp_oauth_pending').where('expires_at', '<=', now).execute();
        await withConstraintErrors('Saving an MCP OAuth authorization', () =>
          trx
            .insertInto('mcp_oauth_pending')
            .values({
              state_hash: pending.stateHash,
              ...ofUser(pending.serverId, pending.userId),
              redirect_url: pending.redirectUrl,
              return_to: pending.returnTo,
              browser_hash: pending.browserHash,
              created_at: now,
              expires_at: pending.expiresAt,
            })
            .execute(),
        );
        const newest = trx
          .selectFrom('mcp_oauth_pending')
          .select('state_hash')
          .where('user_id', '=', pending.userId)
          .orderBy('created_at', 'desc')
          .orderBy('state_hash', 'desc')
          .limit(MAX_PENDING_MCP_AUTHORIZATIONS_PER_USER);
        await trx
          .deleteFrom('mcp_oauth_pending')
          .where('user_id', '=', pending.userId)
          .where('state_hash', 'not in', newest)
          .execute();
      });
    },
    async takePendingAuthorization(stateHash) {
      // Deleted whether expired or not: a state is never good twice, and DELETE … RETURNING lets one replica win.
      const taken = await db
        .deleteFrom('mcp_oauth_pending')
        .where('state_hash', '=', stateHash)
        .returning(pendingColumns)
        .executeTakeFirst();
      if (taken === undefined || Date.parse(taken.expiresAt) <= Date.now()) return undefined;
      return taken;
    },
  };
}

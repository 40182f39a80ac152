import type {
  McpAuthType,
  McpOAuthState,
  McpPendingAuthorization,
  McpServer,
  McpToolApproval,
  McpTransport,
  NewMcpServer,
} from '../mcp-server.ts';
import { mcpServerColumns, mcpServerFromColumns } from '../rules/mcp-server-columns.ts';
import { MAX_PENDING_MCP_AUTHORIZATIONS_PER_USER, type McpServerStore } from '../storage.ts';
import { inTransaction, notFound, type SqliteContext, withConstraintErrors } from './sqlite-context.ts';

interface ServerRow {
  id: string;
  name: string;
  transport: McpTransport;
  url: string | null;
  command: string | null;
  args_json: string;
  auth_type: McpAuthType;
  headers_secret: string | null;
  api_key_secret: string | null;
  environment_secret: string | null;
  created_at: string;
}

interface PendingRow {
  state_hash: string;
  server_id: string;
  user_id: string;
  redirect_url: string;
  return_to: string;
  browser_hash: string | null;
  created_at: string;
  expires_at: string;
}

interface ApprovalRow {
  server_id: string;
  tool_name: string;
  definition_hash: string;
  approved_by: string;
  approved_at: string;
}

/** MCP servers, per-user OAuth state and tool approvals over SQLite; headers, API keys and OAuth state sealed. */
export function createSqliteMcpServerStore(context: SqliteContext): McpServerStore {
  const { database, secrets } = context;
  const insert = database.prepare(`INSERT INTO mcp_servers
    (id, name, transport, url, command, args_json, auth_type, headers_secret, api_key_secret, environment_secret,
     created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const replace = database.prepare(`UPDATE mcp_servers SET name = ?, transport = ?, url = ?, command = ?,
    args_json = ?, auth_type = ?, headers_secret = ?, api_key_secret = ?, environment_secret = ? WHERE id = ?`);
  const selectById = database.prepare('SELECT * FROM mcp_servers WHERE id = ?');
  const selectAll = database.prepare('SELECT * FROM mcp_servers ORDER BY name');
  const deleteById = database.prepare('DELETE FROM mcp_servers WHERE id = ?');
  const selectOAuth = database.prepare(
    'SELECT state_secret FROM mcp_oauth_states WHERE server_id = ? AND user_id = ?',
  );
  const upsertOAuth =
    database.prepare(`INSERT INTO mcp_oauth_states (server_id, user_id, state_secret, updated_at)
    VALUES (?, ?, ?, ?) ON CONFLICT (server_id, user_id) DO UPDATE SET
    state_secret = excluded.state_secret, updated_at = excluded.updated_at`);
  const deleteOAuth = database.prepare('DELETE FROM mcp_oauth_states WHERE server_id = ? AND user_id = ?');
  const upsertApproval = database.prepare(`INSERT INTO mcp_tool_approvals
    (server_id, tool_name, definition_hash, approved_by, approved_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (server_id, tool_name) DO UPDATE SET definition_hash = excluded.definition_hash,
    approved_by = excluded.approved_by, approved_at = excluded.approved_at`);
  const selectApprovals = database.prepare(
    'SELECT * FROM mcp_tool_approvals WHERE server_id = ? ORDER BY tool_name',
  );
  const deleteApproval = database.prepare(
    'DELETE FROM mcp_tool_approvals WHERE server_id = ? AND tool_name = ?',
  );

  const deleteExpiredPending = database.prepare('DELETE FROM mcp_oauth_pending WHERE expires_at <= ?');
  const insertPending = database.prepare(`INSERT INTO mcp_oauth_pending
    (state_hash, server_id, user_id, redirect_url, return_to, browser_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
  const trimPending = database.prepare(`DELETE FROM mcp_oauth_pending WHERE user_id = ? AND state_hash NOT IN
    (SELECT state_hash FROM mcp_oauth_pending WHERE user_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?)`);
  const takePending = database.prepare('DELETE FROM mcp_oauth_pending WHERE state_hash = ? RETURNING *');

  const oauthContext = (serverId: string, userId: string) =>
    `mcp_oauth_states.state_secret:${serverId}:${userId}`;

  const columns = (id: string, server: NewMcpServer) => {
    const sealed = mcpServerColumns(secrets, id, server);
    return [
      sealed.name,
      sealed.transport,
      sealed.url,
      sealed.command,
      sealed.argsJson,
      sealed.authType,
      sealed.headersSecret,
      sealed.apiKeySecret,
      sealed.environmentSecret,
    ] as const;
  };
  const toServer = (row: ServerRow): McpServer =>
    mcpServerFromColumns(secrets, {
      id: row.id,
      name: row.name,
      transport: row.transport,
      url: row.url,
      command: row.command,
      argsJson: row.args_json,
      authType: row.auth_type,
      headersSecret: row.headers_secret,
      apiKeySecret: row.api_key_secret,
      environmentSecret: row.environment_secret,
      createdAt: row.created_at,
    });
  const read = (id: string): McpServer | undefined => {
    const row = selectById.get(id) as ServerRow | undefined;
    return row && toServer(row);
  };

  return {
    async create(server) {
      const id = context.newId();
      withConstraintErrors('Creating an MCP server', () =>
        insert.run(id, ...columns(id, server), context.now()),
      );
      return read(id)!;
    },
    async get(id) {
      return read(id);
    },
    async list() {
      return (selectAll.all() as unknown as ServerRow[]).map(toServer);
    },
    async update(id, server) {
      if (!selectById.get(id)) throw notFound('MCP server', id);
      withConstraintErrors('Updating an MCP server', () => replace.run(...columns(id, server), id));
      return read(id)!;
    },
    async delete(id) {
      return Number(deleteById.run(id).changes) > 0;
    },
    async getOAuthState({ serverId, userId }) {
      const row = selectOAuth.get(serverId, userId) as { state_secret: string } | undefined;
      if (!row) return undefined;
      return JSON.parse(secrets.open(row.state_secret, oauthContext(serverId, userId))) as McpOAuthState;
    },
    async saveOAuthState({ serverId, userId, state }) {
      const sealed = secrets.seal(JSON.stringify(state), oauthContext(serverId, userId));
      withConstraintErrors('Saving MCP OAuth state', () =>
        upsertOAuth.run(serverId, userId, sealed, context.now()),
      );
    },
    async deleteOAuthState({ serverId, userId }) {
      return Number(deleteOAuth.run(serverId, userId).changes) > 0;
    },
    async approveTool(approval) {
      const approvedAt = context.now();
      withConstraintErrors('Approving an MCP tool', () =>
        upsertApproval.run(
          approval.serverId,
          approval.toolName,
          approval.definitionHash,
          approval.approvedBy,
          approvedAt,
        ),
      );
      return { ...approval, approvedAt };
    },
    async listApprovals(serverId) {
      return (selectApprovals.all(serverId) as unknown as ApprovalRow[]).map(
        (row): McpToolApproval => ({
          serverId: row.server_id,
          toolName: row.tool_name,
          definitionHash: row.definition_hash,
          approvedBy: row.approved_by,
          approvedAt: row.approved_at,
        }),
      );
    },
    async revokeApproval({ serverId, toolName }) {
      return Number(deleteApproval.run(serverId, toolName).changes) > 0;
    },
    async savePendingAuthorization(pending) {
      const now = context.now();
      inTransaction(database, () => {
        deleteExpiredPending.run(now);
        withConstraintErrors('Saving an MCP OAuth authorization', () =>
          insertPending.run(
            pending.stateHash,
            pending.serverId,
            pending.userId,
            pending.redirectUrl,
            pending.returnTo,
            pending.browserHash,
            now,
            pending.expiresAt,
          ),
        );
        trimPending.run(pending.userId, pending.userId, MAX_PENDING_MCP_AUTHORIZATIONS_PER_USER);
      });
    },
    async takePendingAuthorization(stateHash) {
      // Deleted whether expired or not: a state is never good twice.
      const row = takePending.get(stateHash) as PendingRow | undefined;
      if (!row || row.expires_at <= context.now()) return undefined;
      return toPending(row);
    },
  };
}

function toPending(row: PendingRow): McpPendingAuthorization {
  return {
    stateHash: row.state_hash,
    serverId: row.server_id,
    userId: row.user_id,
    redirectUrl: row.redirect_url,
    returnTo: row.return_to,
    browserHash: row.browser_hash,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}

import {
  MAX_PENDING_MCP_AUTHORIZATIONS_PER_USER,
  type McpAuthType,
  type McpOAuthState,
  type McpPendingAuthorization,
  type McpServer,
  type McpServerStore,
  type McpToolApproval,
  type McpTransport,
  type NewMcpServer,
} from '@toolbus/storage';
import { mcpServerColumns, mcpServerFromColumns } from '@toolbus/storage/backend';
import {
  inTransaction,
  isoTime,
  notFound,
  type PostgresContext,
  withConstraintErrors,
} from './postgres-context.ts';

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
  created_at: Date;
}

interface PendingRow {
  state_hash: string;
  server_id: string;
  user_id: string;
  redirect_url: string;
  return_to: string;
  created_at: Date;
  expires_at: Date;
}

interface ApprovalRow {
  server_id: string;
  tool_name: string;
  definition_hash: string;
  approved_by: string;
  approved_at: Date;
}

const serverColumns =
  'id, name, transport, url, command, args_json::text AS args_json, auth_type, headers_secret, api_key_secret, environment_secret, created_at';

/** MCP servers, per-user OAuth state and tool approvals over PostgreSQL; headers, API keys and OAuth state sealed. */
export function createPostgresMcpServerStore(context: PostgresContext): McpServerStore {
  const { pool, secrets } = context;
  const oauthContext = (serverId: string, userId: string) =>
    `mcp_oauth_states.state_secret:${serverId}:${userId}`;

  const columns = (id: string, server: NewMcpServer): unknown[] => {
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
    ];
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
      createdAt: isoTime(row.created_at),
    });
  const read = async (id: string): Promise<McpServer | undefined> => {
    const { rows } = await pool.query<ServerRow>(`SELECT ${serverColumns} FROM mcp_servers WHERE id = $1`, [
      id,
    ]);
    return rows[0] && toServer(rows[0]);
  };

  return {
    async create(server) {
      const id = context.newId();
      const values = columns(id, server);
      const { rows } = await withConstraintErrors('Creating an MCP server', () =>
        pool.query<ServerRow>(
          `INSERT INTO mcp_servers (id, name, transport, url, command, args_json, auth_type, headers_secret,
             api_key_secret, environment_secret, created_at)
           VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11) RETURNING ${serverColumns}`,
          [id, ...values, context.now()],
        ),
      );
      return toServer(rows[0]!);
    },
    get: read,
    async list() {
      const { rows } = await pool.query<ServerRow>(
        `SELECT ${serverColumns} FROM mcp_servers ORDER BY name COLLATE "C"`,
      );
      return rows.map(toServer);
    },
    async update(id, server) {
      const values = columns(id, server);
      const { rows } = await withConstraintErrors('Updating an MCP server', () =>
        pool.query<ServerRow>(
          `UPDATE mcp_servers SET name = $1, transport = $2, url = $3, command = $4, args_json = $5::jsonb,
             auth_type = $6, headers_secret = $7, api_key_secret = $8, environment_secret = $9
           WHERE id = $10 RETURNING ${serverColumns}`,
          [...values, id],
        ),
      );
      if (!rows[0]) throw notFound('MCP server', id);
      return toServer(rows[0]);
    },
    async delete(id) {
      return ((await pool.query('DELETE FROM mcp_servers WHERE id = $1', [id])).rowCount ?? 0) > 0;
    },
    async getOAuthState({ serverId, userId }) {
      const { rows } = await pool.query<{ state_secret: string }>(
        'SELECT state_secret FROM mcp_oauth_states WHERE server_id = $1 AND user_id = $2',
        [serverId, userId],
      );
      if (!rows[0]) return undefined;
      return JSON.parse(secrets.open(rows[0].state_secret, oauthContext(serverId, userId))) as McpOAuthState;
    },
    async saveOAuthState({ serverId, userId, state }) {
      const sealed = secrets.seal(JSON.stringify(state), oauthContext(serverId, userId));
      await withConstraintErrors('Saving MCP OAuth state', () =>
        pool.query(
          `INSERT INTO mcp_oauth_states (server_id, user_id, state_secret, updated_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (server_id, user_id) DO UPDATE SET
             state_secret = excluded.state_secret, updated_at = excluded.updated_at`,
          [serverId, userId, sealed, context.now()],
        ),
      );
    },
    async deleteOAuthState({ serverId, userId }) {
      const result = await pool.query('DELETE FROM mcp_oauth_states WHERE server_id = $1 AND user_id = $2', [
        serverId,
        userId,
      ]);
      return (result.rowCount ?? 0) > 0;
    },
    async approveTool(approval) {
      const approvedAt = context.now();
      await withConstraintErrors('Approving an MCP tool', () =>
        pool.query(
          `INSERT INTO mcp_tool_approvals (server_id, tool_name, definition_hash, approved_by, approved_at)
           VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (server_id, tool_name) DO UPDATE SET definition_hash = excluded.definition_hash,
             approved_by = excluded.approved_by, approved_at = excluded.approved_at`,
          [approval.serverId, approval.toolName, approval.definitionHash, approval.approvedBy, approvedAt],
        ),
      );
      return { ...approval, approvedAt };
    },
    async listApprovals(serverId) {
      const { rows } = await pool.query<ApprovalRow>(
        'SELECT * FROM mcp_tool_approvals WHERE server_id = $1 ORDER BY tool_name COLLATE "C"',
        [serverId],
      );
      return rows.map(
        (row): McpToolApproval => ({
          serverId: row.server_id,
          toolName: row.tool_name,
          definitionHash: row.definition_hash,
          approvedBy: row.approved_by,
          approvedAt: isoTime(row.approved_at),
        }),
      );
    },
    async revokeApproval({ serverId, toolName }) {
      const result = await pool.query(
        'DELETE FROM mcp_tool_approvals WHERE server_id = $1 AND tool_name = $2',
        [serverId, toolName],
      );
      return (result.rowCount ?? 0) > 0;
    },
    async savePendingAuthorization(pending) {
      const now = context.now();
      await inTransaction(pool, async (client) => {
        await client.query('DELETE FROM mcp_oauth_pending WHERE expires_at <= $1', [now]);
        await withConstraintErrors('Saving an MCP OAuth authorization', () =>
          client.query(
            `INSERT INTO mcp_oauth_pending (state_hash, server_id, user_id, redirect_url, return_to, created_at, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7)`,
            [
              pending.stateHash,
              pending.serverId,
              pending.userId,
              pending.redirectUrl,
              pending.returnTo,
              now,
              pending.expiresAt,
            ],
          ),
        );
        await client.query(
          `DELETE FROM mcp_oauth_pending WHERE user_id = $1 AND state_hash NOT IN
             (SELECT state_hash FROM mcp_oauth_pending WHERE user_id = $1
               ORDER BY created_at DESC, state_hash DESC LIMIT $2)`,
          [pending.userId, MAX_PENDING_MCP_AUTHORIZATIONS_PER_USER],
        );
      });
    },
    async takePendingAuthorization(stateHash) {
      // Deleted whether expired or not: a state is never good twice, and DELETE … RETURNING lets one replica win.
      const { rows } = await pool.query<PendingRow>(
        'DELETE FROM mcp_oauth_pending WHERE state_hash = $1 RETURNING *',
        [stateHash],
      );
      const row = rows[0];
      if (!row || row.expires_at.getTime() <= Date.now()) return undefined;
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
    createdAt: isoTime(row.created_at),
    expiresAt: isoTime(row.expires_at),
  };
}

import { omitUndefined } from '@toolbus/spec';
import type { Selectable } from 'kysely';
import type { McpServer, NewMcpServer } from '../mcp-server.ts';
import { mcpServerSettingKey, mcpServerSettingNames } from '../mcp-server-setting.ts';
import { checkMcpEndpoint } from '../rules/check-mcp-endpoint.ts';
import { camelColumns } from '../sql/camel-columns.ts';
import type { StorageSchema } from '../sql/storage-schema.ts';
import {
  deleteRows,
  notFound,
  type StoreContext,
  upsert,
  withStoreConstraintErrors,
} from '../sql/store-context.ts';
import { MAX_PENDING_MCP_AUTHORIZATIONS_PER_USER, type McpServerStore } from '../storage.ts';
import { nonEmpty, sealedColumn } from './sealed-column.ts';

type ServerRow = Selectable<StorageSchema['mcp_servers']>;
type StringMap = Readonly<Record<string, string>>;

const pendingColumns = camelColumns(
  'state_hash',
  'server_id',
  'user_id',
  'redirect_url',
  'return_to',
  'browser_hash',
  'created_at',
  'expires_at',
);

const approvalColumns = camelColumns(
  'server_id',
  'tool_name',
  'definition_hash',
  'approved_by',
  'approved_at',
);

/** MCP servers, tool approvals and pending authorizations; headers, API keys and environments sealed. */
export function createMcpServerStore(context: StoreContext): McpServerStore {
  const { db, secrets } = context;
  const servers = () => db.selectFrom('mcp_servers').selectAll();
  const headers = sealedColumn<StringMap>(secrets, 'mcp_servers.headers_secret');
  // The API key as plain text, as it has always been stored.
  const apiKey = sealedColumn<string>(secrets, 'mcp_servers.api_key_secret', {
    stringify: String,
    parse: String,
  });
  const environment = sealedColumn<StringMap>(secrets, 'mcp_servers.environment_secret');
  // The row of server `id`, endpoint checked (`invalid_input`) and secrets sealed.
  const toRow = (id: string, server: NewMcpServer): Omit<ServerRow, 'id' | 'created_at'> => {
    const endpoint = checkMcpEndpoint(server.endpoint);
    const stdio = endpoint.transport === 'stdio' ? endpoint : undefined;
    return {
      name: server.name,
      transport: endpoint.transport,
      url: endpoint.transport === 'stdio' ? null : endpoint.url,
      command: stdio?.command ?? null,
      args_json: JSON.stringify(stdio?.args ?? []),
      auth_type: server.authType,
      headers_secret: headers.seal(id, nonEmpty(server.headers)),
      api_key_secret: apiKey.seal(id, server.apiKey),
      environment_secret: environment.seal(id, nonEmpty(stdio?.environment)),
    };
  };
  // The server stored in this row, secrets opened (`secret_undecryptable` when they do not open).
  const toServer = (row: ServerRow): McpServer => ({
    id: row.id,
    name: row.name,
    endpoint:
      row.transport === 'stdio'
        ? omitUndefined({
            transport: 'stdio' as const,
            command: row.command ?? '',
            args: JSON.parse(row.args_json) as string[],
            environment: environment.open(row.id, row.environment_secret),
          })
        : { transport: row.transport, url: row.url ?? '' },
    authType: row.auth_type,
    headers: headers.open(row.id, row.headers_secret) ?? {},
    apiKey: apiKey.open(row.id, row.api_key_secret) ?? null,
    createdAt: row.created_at,
  });
  return withStoreConstraintErrors('mcpServers', {
    async create(server) {
      const id = context.newId();
      const created = await db
        .insertInto('mcp_servers')
        .values({ id, ...toRow(id, server), created_at: context.now() })
        .returningAll()
        .executeTakeFirstOrThrow();
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
      const updated = await db
        .updateTable('mcp_servers')
        .set(toRow(id, server))
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow(() => notFound('MCP server', id));
      return toServer(updated);
    },
    async delete(id) {
      // Its settings (access, header template) go with it, in the same transaction.
      return context.transaction(async (trx) => {
        const settings = mcpServerSettingNames.map((name) => mcpServerSettingKey(name, id));
        await trx.deleteFrom('settings').where('key', 'in', settings).execute();
        return deleteRows(trx, 'mcp_servers', { id });
      });
    },
    async approveTool({ serverId, toolName, definitionHash, approvedBy }) {
      const approvedAt = context.now();
      const changes = { definition_hash: definitionHash, approved_by: approvedBy, approved_at: approvedAt };
      await upsert(db, 'mcp_tool_approvals', { server_id: serverId, tool_name: toolName }, changes);
      return { serverId, toolName, definitionHash, approvedBy, approvedAt };
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
      return deleteRows(db, 'mcp_tool_approvals', { server_id: serverId, tool_name: toolName });
    },
    async savePendingAuthorization(pending) {
      const now = context.now();
      await context.transaction(async (trx) => {
        await trx.deleteFrom('mcp_oauth_pending').where('expires_at', '<=', now).execute();
        await trx
          .insertInto('mcp_oauth_pending')
          .values({
            state_hash: pending.stateHash,
            server_id: pending.serverId,
            user_id: pending.userId,
            redirect_url: pending.redirectUrl,
            return_to: pending.returnTo,
            browser_hash: pending.browserHash,
            created_at: now,
            expires_at: pending.expiresAt,
          })
          .execute();
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
  });
}

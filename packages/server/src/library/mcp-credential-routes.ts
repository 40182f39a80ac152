import {
  mcpCredentialsBody,
  mcpCredentialsStatusSchema,
  mcpHeaderTemplateBody,
  mcpHeaderTemplateSchema,
  mcpServerParams,
} from '@toolbus/api-schema';
import {
  type CheckedMcpHeaderTemplate,
  checkMcpHeaderTemplate,
  MCP_BUILT_IN_PLACEHOLDERS,
  type McpLogger,
  mcpCredentialValuesProblem,
} from '@toolbus/mcp';
import { omitUndefined } from '@toolbus/spec';
import {
  mayUseMcpServer,
  readMcpHeaderTemplate,
  readMcpServerAccess,
  type Storage,
  type User,
  writeMcpHeaderTemplate,
} from '@toolbus/storage';
import type { RouteRegistry } from '../http/route-registry.ts';
import { notFoundError, ServerError } from '../http/server-error.ts';

const admin = { kind: 'admin' } as const;
const self = { kind: 'user', scope: 'chat' } as const;

function noServer(serverId: string): ServerError {
  return notFoundError('path.serverId', `no MCP server has the id "${serverId}".`);
}

/**
 * Registers per-user MCP credentials: an admin's header template (`GET`/`PUT
 * /v1/admin/mcp-servers/{serverId}/header-template`) and each user's own values for it (`GET`/`PUT`/`DELETE
 * /v1/mcp-servers/{serverId}/credentials`, values stored encrypted and never shown back). Chat and the egress proxy
 * fill the template through `mcpHeaderTemplateFor` (`@toolbus/assembly`).
 */
export function registerMcpCredentialRoutes(
  registry: RouteRegistry,
  storage: Pick<Storage, 'mcpServers' | 'settings' | 'userSecrets'>,
  options: { readonly logger?: McpLogger } = {},
): void {
  const templateOf = async (serverId: string) => {
    const headers = (await readMcpHeaderTemplate(storage.settings, serverId)) ?? {};
    return checkMcpHeaderTemplate(headers);
  };
  registry.add(
    {
      method: 'get',
      path: '/v1/admin/mcp-servers/{serverId}/header-template',
      operationId: 'getMcpHeaderTemplate',
      summary: "An MCP server's per-user header template and the placeholders users fill in",
      tag: 'admin',
      access: admin,
      params: mcpServerParams,
      responses: { 200: { description: 'The template', schema: mcpHeaderTemplateSchema } },
    },
    async ({ params, context }) => {
      if (!(await storage.mcpServers.get(params.serverId))) throw noServer(params.serverId);
      const { headers, placeholders, dropped } = await templateOf(params.serverId);
      return context.json({ headers, placeholders, dropped });
    },
  );
  registry.add(
    {
      method: 'put',
      path: '/v1/admin/mcp-servers/{serverId}/header-template',
      operationId: 'setMcpHeaderTemplate',
      summary:
        "Set an MCP server's per-user header template (replaces it; deny-listed headers are dropped and named in the answer)",
      tag: 'admin',
      access: admin,
      params: mcpServerParams,
      body: mcpHeaderTemplateBody,
      responses: { 200: { description: 'The template as stored', schema: mcpHeaderTemplateSchema } },
    },
    async ({ params, body, context }) => {
      if (!(await storage.mcpServers.get(params.serverId))) throw noServer(params.serverId);
      const checked = checkMcpHeaderTemplate(body.headers, omitUndefined({ logger: options.logger }));
      if (checked.problems.length > 0) {
        throw new ServerError({
          code: 'invalid_request',
          field: 'body.headers',
          message: `body.headers: ${checked.problems.join(' ')}`,
        });
      }
      await writeMcpHeaderTemplate(storage.settings, params.serverId, checked.headers);
      return context.json({
        headers: checked.headers,
        placeholders: checked.placeholders,
        dropped: checked.dropped,
      });
    },
  );

  registerUserCredentialRoutes(registry, storage, templateOf);
}

/** The user routes: each caller's own values for a server's template, never shown back. */
function registerUserCredentialRoutes(
  registry: RouteRegistry,
  storage: Pick<Storage, 'mcpServers' | 'settings' | 'userSecrets'>,
  templateOf: (serverId: string) => Promise<CheckedMcpHeaderTemplate>,
): void {
  // A user sees only servers they may use; any other is "not found", as if it did not exist.
  const usableServer = async (user: User, serverId: string) => {
    const server = await storage.mcpServers.get(serverId);
    if (!server || !mayUseMcpServer(await readMcpServerAccess(storage.settings, serverId), user.id)) {
      throw noServer(serverId);
    }
    return server;
  };
  const statusOf = async (user: User, serverId: string) => {
    const { placeholders } = await templateOf(serverId);
    const stored =
      (await storage.userSecrets.get({ kind: 'mcpHeaderValues', ownerId: serverId, userId: user.id })) ?? {};
    return {
      serverId,
      placeholders: placeholders.map((name) => ({
        name,
        set: Object.hasOwn(stored, name) && stored[name] !== '',
      })),
      builtIns: [...MCP_BUILT_IN_PLACEHOLDERS],
    };
  };
  registry.add(
    {
      method: 'get',
      path: '/v1/mcp-servers/{serverId}/credentials',
      operationId: 'getMcpCredentials',
      summary: "Which of an MCP server's header placeholders you have filled (never the values)",
      tag: 'mcp-connections',
      access: self,
      params: mcpServerParams,
      responses: { 200: { description: 'The status', schema: mcpCredentialsStatusSchema } },
    },
    async ({ principal, params, context }) => {
      await usableServer(principal.user, params.serverId);
      return context.json(await statusOf(principal.user, params.serverId));
    },
  );
  registry.add(
    {
      method: 'put',
      path: '/v1/mcp-servers/{serverId}/credentials',
      operationId: 'setMcpCredentials',
      summary:
        "Store your own values for an MCP server's header template (encrypted; replaces what you stored)",
      tag: 'mcp-connections',
      access: self,
      params: mcpServerParams,
      body: mcpCredentialsBody,
      responses: { 200: { description: 'The status', schema: mcpCredentialsStatusSchema } },
    },
    async ({ principal, params, body, context }) => {
      const server = await usableServer(principal.user, params.serverId);
      const { placeholders } = await templateOf(params.serverId);
      if (placeholders.length === 0) {
        throw new ServerError({
          code: 'invalid_request',
          field: 'path.serverId',
          message: `MCP server "${server.name}" has no header template with placeholders: there is nothing to fill.`,
        });
      }
      const problem =
        mcpCredentialValuesProblem(body.values) ??
        Object.keys(body.values)
          .filter((name) => !placeholders.includes(name))
          .map(
            (name) =>
              `{${name}} is not a placeholder of this server's template (it uses ${placeholders.map((p) => `{${p}}`).join(', ')}).`,
          )[0];
      if (problem !== undefined) {
        throw new ServerError({
          code: 'invalid_request',
          field: 'body.values',
          message: `body.values: ${problem}`,
        });
      }
      await storage.userSecrets.set({
        kind: 'mcpHeaderValues',
        ownerId: params.serverId,
        userId: principal.user.id,
        value: body.values,
      });
      return context.json(await statusOf(principal.user, params.serverId));
    },
  );
  registry.add(
    {
      method: 'delete',
      path: '/v1/mcp-servers/{serverId}/credentials',
      operationId: 'deleteMcpCredentials',
      summary: 'Forget your values for an MCP server',
      tag: 'mcp-connections',
      access: self,
      params: mcpServerParams,
      responses: { 200: { description: 'The status', schema: mcpCredentialsStatusSchema } },
    },
    async ({ principal, params, context }) => {
      await usableServer(principal.user, params.serverId);
      await storage.userSecrets.delete({
        kind: 'mcpHeaderValues',
        ownerId: params.serverId,
        userId: principal.user.id,
      });
      return context.json(await statusOf(principal.user, params.serverId));
    },
  );
}

import { mcpServerAccessSchema, mcpServerParams } from '@toolbus/api-schema';
import { omitUndefined } from '@toolbus/spec';
import { readMcpServerAccess, type Storage, setMcpServerAccess } from '@toolbus/storage';
import type { RouteRegistry } from '../http/route-registry.ts';
import { notFoundError, ServerError } from '../http/server-error.ts';

const admin = { kind: 'admin' } as const;

/**
 * Registers `GET` / `PUT /v1/admin/mcp-servers/{serverId}/access`: who may use an MCP server and whether sandboxed
 * code is offered it through the egress proxy. The record itself and its one predicate live in `@toolbus/storage`
 * (`mcp-server-access.ts`); without these routes an admin could not turn sandbox access on at all.
 */
export function registerMcpServerAccessRoutes(
  registry: RouteRegistry,
  storage: Pick<Storage, 'mcpServers' | 'settings' | 'users'>,
): void {
  const serverOf = async (serverId: string) => {
    const server = await storage.mcpServers.get(serverId);
    if (!server) {
      throw notFoundError('path.serverId', `no MCP server has the id "${serverId}".`);
    }
    return server;
  };
  registry.add(
    {
      method: 'get',
      path: '/v1/admin/mcp-servers/{serverId}/access',
      operationId: 'getMcpServerAccess',
      summary: 'Who may use an MCP server, and whether sandboxes are offered it',
      tag: 'admin',
      access: admin,
      params: mcpServerParams,
      responses: { 200: { description: 'The access', schema: mcpServerAccessSchema } },
    },
    async ({ params, context }) => {
      await serverOf(params.serverId);
      return context.json((await readMcpServerAccess(storage.settings, params.serverId)) ?? {});
    },
  );
  registry.add(
    {
      method: 'put',
      path: '/v1/admin/mcp-servers/{serverId}/access',
      operationId: 'setMcpServerAccess',
      summary: 'Set who may use an MCP server, and whether sandboxes are offered it (replaces the record)',
      tag: 'admin',
      access: admin,
      params: mcpServerParams,
      body: mcpServerAccessSchema,
      responses: { 200: { description: 'The access as stored', schema: mcpServerAccessSchema } },
    },
    async ({ params, body, context }) => {
      await serverOf(params.serverId);
      const result = await setMcpServerAccess(
        storage,
        params.serverId,
        omitUndefined({ userIds: body.userIds, availableToSandboxes: body.availableToSandboxes }),
      );
      if (!result.ok) {
        const { index, userId } = result.unknownUser;
        throw new ServerError({
          code: 'invalid_request',
          field: `body.userIds.${index}`,
          message: `body.userIds.${index}: no user has the id "${userId}".`,
        });
      }
      return context.json(result.access);
    },
  );
}

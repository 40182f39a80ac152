import {
  mcpServerBody,
  mcpServerListSchema,
  mcpServerParams,
  mcpServerSchema,
  mcpToolParams,
  mcpToolReviewListSchema,
  mcpToolReviewSchema,
} from '@toolbus/api-schema';
import { omitUndefined } from '@toolbus/spec';
import type { RouteRegistry } from '../http/route-registry.ts';
import type { LibraryAdmin } from './library-admin.ts';

const admin = { kind: 'admin' } as const;

/** Registers the admin routes of MCP servers and the approval of their tools. */
export function registerMcpServerAdminRoutes(registry: RouteRegistry, library: LibraryAdmin): void {
  registry.add(
    {
      method: 'get',
      path: '/v1/admin/mcp-servers',
      operationId: 'listMcpServers',
      summary: 'MCP servers (header names only, never values)',
      tag: 'admin',
      access: admin,
      responses: { 200: { description: 'The servers', schema: mcpServerListSchema } },
    },
    async ({ context }) => context.json({ servers: await library.listMcpServers() }),
  );
  registry.add(
    {
      method: 'post',
      path: '/v1/admin/mcp-servers',
      operationId: 'createMcpServer',
      summary: 'Add an MCP server (secrets stored encrypted)',
      tag: 'admin',
      access: admin,
      body: mcpServerBody,
      responses: { 201: { description: 'The server', schema: mcpServerSchema } },
    },
    async ({ body, context }) =>
      context.json(
        await library.createMcpServer(omitUndefined(body) as Parameters<LibraryAdmin['createMcpServer']>[0]),
        201,
      ),
  );
  registry.add(
    {
      method: 'delete',
      path: '/v1/admin/mcp-servers/{serverId}',
      operationId: 'deleteMcpServer',
      summary: 'Remove an MCP server',
      tag: 'admin',
      access: admin,
      params: mcpServerParams,
      responses: { 204: { description: 'Removed' } },
    },
    async ({ params, context }) => {
      await library.deleteMcpServer(params.serverId);
      return context.body(null, 204);
    },
  );
  registry.add(
    {
      method: 'get',
      path: '/v1/admin/mcp-servers/{serverId}/tools',
      operationId: 'reviewMcpTools',
      summary: "The server's tools: approved, drifted (definition changed since approval) or unapproved",
      tag: 'admin',
      access: admin,
      params: mcpServerParams,
      responses: { 200: { description: 'The tools', schema: mcpToolReviewListSchema } },
    },
    async ({ params, principal, context }) =>
      context.json({ tools: await library.reviewMcpTools(params.serverId, principal.user.id) }),
  );
  registry.add(
    {
      method: 'post',
      path: '/v1/admin/mcp-servers/{serverId}/tools/{toolName}/approval',
      operationId: 'approveMcpTool',
      summary: "Approve a tool's current definition (also a drifted one)",
      tag: 'admin',
      access: admin,
      params: mcpToolParams,
      responses: { 200: { description: 'The tool', schema: mcpToolReviewSchema } },
    },
    async ({ params, principal, context }) =>
      context.json(
        await library.approveMcpTool(
          params.serverId,
          params.toolName,
          principal.user.email,
          principal.user.id,
        ),
      ),
  );
  registry.add(
    {
      method: 'delete',
      path: '/v1/admin/mcp-servers/{serverId}/tools/{toolName}/approval',
      operationId: 'revokeMcpTool',
      summary: "Withdraw a tool's approval",
      tag: 'admin',
      access: admin,
      params: mcpToolParams,
      responses: { 204: { description: 'Withdrawn' } },
    },
    async ({ params, context }) => {
      await library.revokeMcpTool(params.serverId, params.toolName);
      return context.body(null, 204);
    },
  );
}

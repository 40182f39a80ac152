import {
  personaBody,
  personaDetailSchema,
  personaListSchema,
  personaParams,
  personaSchema,
  toolRowBody,
  toolRowParams,
  toolRowSchema,
} from '@toolbus/api-schema';
import { omitUndefined } from '@toolbus/spec';
import type { RouteRegistry } from '../http/route-registry.ts';
import type { LibraryAdmin } from './library-admin.ts';

const admin = { kind: 'admin' } as const;

/** Registers the admin routes of personas and their tool rows. */
export function registerPersonaRoutes(registry: RouteRegistry, library: LibraryAdmin): void {
  registry.add(
    {
      method: 'get',
      path: '/v1/admin/personas',
      operationId: 'listPersonas',
      summary: 'Every persona',
      tag: 'admin',
      access: admin,
      responses: { 200: { description: 'The personas', schema: personaListSchema } },
    },
    async ({ context }) => context.json({ personas: await library.listPersonas() }),
  );
  registry.add(
    {
      method: 'post',
      path: '/v1/admin/personas',
      operationId: 'createPersona',
      summary: 'Create a persona',
      tag: 'admin',
      access: admin,
      body: personaBody,
      responses: {
        201: { description: 'The persona', schema: personaSchema },
        409: { description: 'A persona of that name exists (names are unique, ignoring case)' },
      },
    },
    async ({ body, context }) => context.json(await library.createPersona(omitUndefined(body)), 201),
  );
  registry.add(
    {
      method: 'get',
      path: '/v1/admin/personas/{personaId}',
      operationId: 'getPersona',
      summary: 'A persona and its tool rows (credentials left out)',
      tag: 'admin',
      access: admin,
      params: personaParams,
      responses: { 200: { description: 'The persona', schema: personaDetailSchema } },
    },
    async ({ params, context }) => context.json(await library.getPersona(params.personaId)),
  );
  registry.add(
    {
      method: 'patch',
      path: '/v1/admin/personas/{personaId}',
      operationId: 'updatePersona',
      summary: 'Change a persona',
      tag: 'admin',
      access: admin,
      params: personaParams,
      body: personaBody.partial(),
      responses: {
        200: { description: 'The persona', schema: personaSchema },
        409: { description: 'Another persona has that name (names are unique, ignoring case)' },
      },
    },
    async ({ params, body, context }) =>
      context.json(await library.updatePersona(params.personaId, omitUndefined(body))),
  );
  registry.add(
    {
      method: 'delete',
      path: '/v1/admin/personas/{personaId}',
      operationId: 'deletePersona',
      summary: 'Delete a persona',
      tag: 'admin',
      access: admin,
      params: personaParams,
      responses: { 204: { description: 'Deleted' } },
    },
    async ({ params, context }) => {
      await library.deletePersona(params.personaId);
      return context.body(null, 204);
    },
  );
  registry.add(
    {
      method: 'post',
      path: '/v1/admin/personas/{personaId}/tools',
      operationId: 'addPersonaTool',
      summary:
        'Add a tool row: a built-in, an OpenAPI document (uploaded, or by URL through the guarded fetch), or an MCP tool',
      tag: 'admin',
      access: admin,
      params: personaParams,
      body: toolRowBody,
      responses: { 201: { description: 'The row', schema: toolRowSchema } },
    },
    async ({ params, body, context }) => {
      if (body.kind === 'built-in')
        return context.json(await library.addBuiltInTool(params.personaId, body.builtIn), 201);
      if (body.kind === 'mcp') {
        return context.json(await library.addMcpTool(params.personaId, body.serverId, body.toolName), 201);
      }
      const { row, operations } = await library.addOpenApiTools(params.personaId, {
        name: body.name,
        document: body.document,
        url: body.url,
        auth: body.auth as Parameters<LibraryAdmin['addOpenApiTools']>[1]['auth'],
      });
      return context.json({ ...row, operations }, 201);
    },
  );
  registry.add(
    {
      method: 'delete',
      path: '/v1/admin/personas/{personaId}/tools/{rowId}',
      operationId: 'removePersonaTool',
      summary: 'Remove a tool row',
      tag: 'admin',
      access: admin,
      params: toolRowParams,
      responses: { 204: { description: 'Removed' } },
    },
    async ({ params, context }) => {
      await library.removeToolRow(params.personaId, params.rowId);
      return context.body(null, 204);
    },
  );
}

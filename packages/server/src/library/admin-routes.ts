import { mcpServerBody, settingsSchema } from '@toolbus/api-schema';
import type { RouteRegistry } from '../http/route-registry.ts';
import { registerBuiltInToolRoutes } from './built-in-tool-routes.ts';
import { DOCUMENT_UPLOAD_PATH, registerDocumentRoutes } from './document-routes.ts';
import type { LibraryAdmin } from './library-admin.ts';
import { registerMcpCheckRoute } from './mcp-check-route.ts';
import { registerMcpServerAdminRoutes } from './mcp-server-admin-routes.ts';
import { registerPersonaRoutes } from './persona-routes.ts';
import { registerSkillRoutes, SKILL_UPLOAD_PATH } from './skill-routes.ts';

const admin = { kind: 'admin' } as const;

/** The paths whose body is raw bytes (an upload), not JSON: they get the upload body limit. */
export const ADMIN_UPLOAD_PATHS = [SKILL_UPLOAD_PATH, DOCUMENT_UPLOAD_PATH] as const;

/**
 * Registers the admin API over {@link LibraryAdmin}, one file per part of the library (personas, MCP servers,
 * skills, documents, built-in tools) and the deployment's settings here: every route needs the admin role and
 * the `admin` scope.
 */
export function registerAdminRoutes(registry: RouteRegistry, library: LibraryAdmin): void {
  registerBuiltInToolRoutes(registry, library.availableBuiltIns);
  registerMcpCheckRoute(registry, library, mcpServerBody);
  registerPersonaRoutes(registry, library);
  registerMcpServerAdminRoutes(registry, library);
  registerSkillRoutes(registry, library);
  registerDocumentRoutes(registry, library);
  registry.add(
    {
      method: 'get',
      path: '/v1/admin/settings',
      operationId: 'getSettings',
      summary: 'Deployment settings',
      tag: 'admin',
      access: admin,
      responses: { 200: { description: 'The settings', schema: settingsSchema } },
    },
    async ({ context }) => context.json(await library.getSettings()),
  );
  registry.add(
    {
      method: 'patch',
      path: '/v1/admin/settings',
      operationId: 'updateSettings',
      summary: 'Change settings (null removes one)',
      tag: 'admin',
      access: admin,
      body: settingsSchema,
      responses: { 200: { description: 'The settings', schema: settingsSchema } },
    },
    async ({ body, context }) => context.json(await library.updateSettings(body)),
  );
}

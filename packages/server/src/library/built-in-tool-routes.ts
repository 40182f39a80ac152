import { builtInToolListSchema } from '@toolbus/api-schema';
import { BUILT_IN_TOOLS } from '@toolbus/core';
import type { RouteRegistry } from '../http/route-registry.ts';
import type { BuiltInToolContext } from '../server-options.ts';

/** Which built-in ids the deployment can run for the caller (default: none known, every one reported false). */
export type AvailableBuiltIns = (
  caller: Pick<BuiltInToolContext, 'user' | 'organizationId'>,
) => Promise<ReadonlySet<string>>;

/**
 * Registers `GET /v1/admin/built-in-tools`: the built-in tools a persona can switch on, read from core's one table
 * (`BUILT_IN_TOOLS`), so the web app keeps no copy of the list, with whether this deployment can run each (it has
 * a factory for it; one without skips it in turns, as it does for a row added by id).
 */
export function registerBuiltInToolRoutes(registry: RouteRegistry, available?: AvailableBuiltIns): void {
  registry.add(
    {
      method: 'get',
      path: '/v1/admin/built-in-tools',
      operationId: 'listBuiltInTools',
      summary: 'The built-in tools a persona can switch on',
      tag: 'admin',
      access: { kind: 'admin' },
      responses: {
        200: {
          description: 'The built-in tools, in the table order',
          schema: builtInToolListSchema,
        },
      },
    },
    async ({ principal, context }) => {
      const ids = principal
        ? await available?.({ user: principal.user, organizationId: principal.organization.id })
        : undefined;
      return context.json({
        tools: BUILT_IN_TOOLS.map((tool) => ({
          id: tool.id,
          name: tool.name,
          displayName: tool.displayName,
          available: ids?.has(tool.id) ?? false,
        })),
      });
    },
  );
}

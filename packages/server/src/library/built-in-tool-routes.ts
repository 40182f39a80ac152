import { BUILT_IN_TOOLS } from '@toolbus/core';
import { z } from 'zod';
import type { RouteRegistry } from '../http/route-registry.ts';

const builtInToolSchema = z.object({
  id: z.string().describe('The id a persona tool row stores (SearchTool)'),
  name: z.string().describe('The name the model calls it by (internal_search)'),
});

/**
 * Registers `GET /v1/admin/built-in-tools`: the built-in tools a persona can switch on, read from core's one table
 * (`BUILT_IN_TOOLS`), so the web app keeps no copy of the list. A deployment without a factory for one skips it in
 * turns, as it does for a row added by id.
 */
export function registerBuiltInToolRoutes(registry: RouteRegistry): void {
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
          schema: z.object({ tools: z.array(builtInToolSchema) }),
        },
      },
    },
    async ({ context }) =>
      context.json({ tools: BUILT_IN_TOOLS.map((tool) => ({ id: tool.id, name: tool.name })) }),
  );
}

import type { NewMcpServer } from '@toolbus/storage';
import { z } from 'zod';
import type { RouteRegistry } from '../http/route-registry.ts';
import type { LibraryAdmin } from './library-admin.ts';

const checkSchema = z.object({
  tools: z.array(z.object({ name: z.string(), description: z.string() })),
});

/**
 * Registers `POST /v1/admin/mcp-servers/check`: connect to an MCP server described as for adding one, list its
 * tools, store nothing. The web form calls it before adding a server, so "added" means "works"; a refusal (the
 * outbound guard, an unreachable host, a failed handshake) is a 4xx whose message says why.
 */
export function registerMcpCheckRoute(
  registry: RouteRegistry,
  library: LibraryAdmin,
  body: z.ZodType<unknown>,
): void {
  registry.add(
    {
      method: 'post',
      path: '/v1/admin/mcp-servers/check',
      operationId: 'checkMcpServer',
      summary: 'Connect to an MCP server (not stored) and list its tools, or say why it cannot be reached',
      tag: 'admin',
      access: { kind: 'admin' },
      body,
      responses: {
        200: { description: 'The tools it lists', schema: checkSchema },
        400: { description: 'It cannot be reached, or refuses the handshake (the message says why)' },
        403: { description: 'The outbound guard refuses its address (the message names the rule)' },
      },
    },
    async ({ body, context }) => context.json(await library.checkMcpServer(body as NewMcpServer)),
  );
}

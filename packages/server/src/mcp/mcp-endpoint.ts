import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { runToolCalls } from '@toolbus/core';
import type { Hono } from 'hono';
import type { ChatService } from '../chats/chat-service.ts';
import type { RouteGuard } from '../http/route-registry.ts';

/** Where a persona's tools are served over MCP: `/v1/mcp/{personaId}` (`default` for the default persona). */
export const MCP_ENDPOINT_PATH = '/v1/mcp/:personaId';

/**
 * Serves a persona's assembled tools as an MCP server over Streamable HTTP (stateless: each request authenticates
 * with an API key holding the `mcp` scope, gets a fresh assembly for its user, and gets JSON back). MCP clients so
 * get toolbus's tools with its SSRF guard, sandbox and credential injection; a tool's failure is an `isError`
 * result, never a protocol error.
 */
export function mountMcpEndpoint(
  app: Hono,
  options: { readonly chats: ChatService; readonly guard: RouteGuard; readonly version: string },
): void {
  app.all(MCP_ENDPOINT_PATH, async (context) => {
    const principal = await options.guard(context, { kind: 'user', scope: 'mcp' });
    if (!principal) throw new Error('unreachable: the guard authenticates user routes');
    const personaId = context.req.param('personaId');
    const persona = await options.chats.persona(
      personaId === 'default' ? undefined : personaId,
      'path.personaId',
    );
    const { tools, cleanup } = await options.chats.assemble(principal, persona);
    const server = new Server(
      { name: `toolbus-${persona.name}`, version: options.version },
      { capabilities: { tools: {} } },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: tools.map((tool) => {
        const definition = tool.definition();
        return {
          name: definition.name,
          description: definition.description,
          inputSchema: definition.parameters as { type: 'object'; [key: string]: unknown },
        };
      }),
    }));
    let calls = 0;
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      calls += 1;
      const { outcomes } = await runToolCalls(
        [
          {
            id: `mcp_${calls}`,
            name: request.params.name,
            arguments: (request.params.arguments ?? {}) as Record<string, unknown>,
            placement: { turn: 0, tab: 0 },
          },
        ],
        tools,
        { userId: principal.user.id, signal: extra.signal },
      );
      const outcome = outcomes[0];
      return {
        content: [{ type: 'text' as const, text: outcome?.response.llmFacing ?? '' }],
        isError: outcome?.status !== 'success',
      };
    });
    // No session id generator: stateless, so every request stands alone (and may reach any instance).
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
    try {
      await server.connect(transport);
      return await transport.handleRequest(context.req.raw);
    } finally {
      await server.close().catch(() => undefined);
      await cleanup();
    }
  });
}

import type { Hono } from 'hono';
import { z } from 'zod';
import type { ChatService } from '../chats/chat-service.ts';
import type { RouteGuard, RouteRegistry } from '../http/route-registry.ts';
import { answerMcpToolCall } from './mcp-endpoint-tool-call.ts';
import { mcpListedTool } from './mcp-listed-tool.ts';
import { mcpParamHeaderRejection } from './mcp-param-headers.ts';

/** Where a persona's tools are served over MCP: `/v1/mcp/{personaId}` (`default` for the default persona). */
export const MCP_ENDPOINT_PATH = '/v1/mcp/:personaId';

let mcpServerSdk: Promise<typeof import('@modelcontextprotocol/server')> | undefined;

/**
 * The MCP SDK's server package, imported on the endpoint's first request: it adds about 28 MB to a process, and
 * most servers never serve MCP.
 */
function loadMcpServerSdk(): Promise<typeof import('@modelcontextprotocol/server')> {
  mcpServerSdk ??= import('@modelcontextprotocol/server');
  return mcpServerSdk;
}

/**
 * Puts the MCP endpoint in the OpenAPI document. Its messages are JSON-RPC, as the MCP specification defines them
 * (Streamable HTTP): only their envelope is described here.
 */
export function describeMcpEndpoint(registry: RouteRegistry): void {
  const params = z.object({
    personaId: z
      .string()
      .min(1)
      .max(100)
      .describe('The persona whose tools are served (`default` for the default one)'),
  });
  const common = {
    path: '/v1/mcp/{personaId}',
    tag: 'mcp',
    access: { kind: 'user', scope: 'mcp' },
    params,
  } as const;
  registry.describe({
    ...common,
    method: 'post',
    operationId: 'mcpMessage',
    summary:
      "MCP (Streamable HTTP, stateless): a JSON-RPC message to a persona's tools (tools/list, tools/call)",
    body: z.looseObject({
      jsonrpc: z.literal('2.0'),
      method: z.string().optional(),
      id: z.union([z.string(), z.number()]).optional(),
      params: z.unknown().optional(),
    }),
    responses: {
      200: { description: 'The JSON-RPC response', schema: z.looseObject({ jsonrpc: z.literal('2.0') }) },
      202: { description: 'A notification or response was accepted' },
      400: { description: 'No such persona, or not a JSON-RPC message' },
      401: { description: 'No valid credential' },
      403: { description: 'The key lacks the "mcp" scope' },
      406: { description: 'The Accept header must list application/json and text/event-stream' },
    },
  });
  for (const method of ['get', 'delete'] as const) {
    registry.describe({
      ...common,
      method,
      operationId: method === 'get' ? 'mcpStream' : 'mcpEndSession',
      summary:
        method === 'get'
          ? 'MCP (Streamable HTTP): the server-to-client stream; stateless here, so it ends at once'
          : 'MCP (Streamable HTTP): end a session; stateless here, so there is none to end',
      responses: {
        200: { description: 'Answered as the MCP transport answers', contentType: 'text/event-stream' },
        401: { description: 'No valid credential' },
      },
    });
  }
}

/**
 * Serves a persona's assembled tools as an MCP server over Streamable HTTP, on both protocol revisions: 2026-07-28
 * (sessionless by design) and, through the SDK's stateless fallback, 2025-11-25 and older. Either way each request
 * stands alone: it authenticates with an API key holding the `mcp` scope, gets a fresh assembly for its user, and
 * gets JSON back, so any replica can answer it without sticky sessions. MCP clients so
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
    const { createMcpHandler, Server } = await loadMcpServerSdk();
    const { tools, cleanup } = await options.chats.assemble(principal, persona);
    let calls = 0;
    // The SDK asks for a server per exchange (one for the 2026-07-28 leg, a fresh one for a legacy request).
    const serve = () => {
      const server = new Server(
        { name: `toolbus-${persona.name}`, version: options.version },
        // Logging: a tool's own log messages reach the caller (see answerMcpToolCall).
        { capabilities: { tools: {}, logging: {} } },
      );
      server.setRequestHandler('tools/list', async () => ({ tools: tools.map(mcpListedTool) }));
      server.setRequestHandler('tools/call', async (request, context) => {
        calls += 1;
        return answerMcpToolCall({
          id: `mcp_${calls}`,
          name: request.params.name,
          arguments: request.params.arguments ?? {},
          tools,
          userId: principal.user.id,
          context,
        });
      });
      return server;
    };
    // Stateless on both legs: no session ids, so every request may reach any instance.
    const handler = createMcpHandler(serve, { legacy: 'stateless' });
    const close = async () => {
      await handler.close().catch(() => undefined);
      await cleanup();
    };
    let response: Response;
    try {
      const rejection = mcpParamHeaderRejection({
        body:
          context.req.method === 'POST'
            ? await context.req.raw
                .clone()
                .json()
                .catch(() => undefined)
            : undefined,
        headers: context.req.raw.headers,
        tools,
      });
      if (rejection !== undefined) {
        await close();
        return rejection;
      }
      response = await handler.fetch(context.req.raw);
    } catch (error) {
      await close();
      throw error;
    }
    return closedWhenSent(response, close);
  });
}

/**
 * The response, with `close` run once its body has been sent or abandoned. A call answered as a stream (progress,
 * log messages) is still running when the SDK hands the response over: its tools' connections must stay open
 * until the stream ends.
 */
function closedWhenSent(response: Response, close: () => Promise<void>): Response {
  if (response.body === null) {
    void close();
    return response;
  }
  let closed = false;
  const once = async () => {
    if (closed) return;
    closed = true;
    await close();
  };
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        controller.close();
      } catch (error) {
        controller.error(error);
      }
      await once();
    },
    async cancel(reason) {
      await reader.cancel(reason).catch(() => undefined);
      await once();
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

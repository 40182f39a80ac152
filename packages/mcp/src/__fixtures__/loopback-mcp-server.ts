// A real MCP server (the SDK's low-level `Server` over its Streamable HTTP server transport) on 127.0.0.1, whose
// tool table the test controls and which records the headers of every request it receives.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';

/** A tool the loopback server offers: its listing and what a call returns. */
export interface LoopbackTool {
  readonly tool: Tool;
  readonly call: (args: Record<string, unknown>) => CallToolResult | Promise<CallToolResult>;
}

/** One request as the server received it. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  /** As node parsed them: lower-case names. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** The MCP endpoint as a request handler, to mount on node:http or on an express app. */
export interface LoopbackMcpHandler {
  /** `parsedBody` when a framework (express) already read the JSON body. */
  handle(request: IncomingMessage, response: ServerResponse, parsedBody?: unknown): Promise<void>;
  /** Replaces the tool table and sends `notifications/tools/list_changed` to every session. */
  setTools(tools: readonly LoopbackTool[]): Promise<void>;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Builds the handler (stateful sessions, so the server can notify on the GET stream). */
export function createLoopbackMcpHandler(initialTools: readonly LoopbackTool[]): LoopbackMcpHandler {
  let tools = [...initialTools];
  const sessions = new Map<string, { server: Server; transport: StreamableHTTPServerTransport }>();
  const requests: RecordedRequest[] = [];

  const newSession = async (): Promise<StreamableHTTPServerTransport> => {
    const server = new Server(
      { name: 'loopback', version: '1.0.0' },
      { capabilities: { tools: { listChanged: true } } },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.map((entry) => entry.tool) }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const entry = tools.find((candidate) => candidate.tool.name === request.params.name);
      if (entry === undefined) throw new Error(`unknown tool ${request.params.name}`);
      return entry.call(request.params.arguments ?? {});
    });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, { server, transport });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport;
  };

  return {
    requests,
    async handle(request, response, parsedBody) {
      requests.push({ method: request.method ?? '', path: request.url ?? '', headers: { ...request.headers } });
      const sessionId = request.headers['mcp-session-id'];
      const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
      if (existing !== undefined) {
        await existing.transport.handleRequest(request, response, parsedBody);
        return;
      }
      if (request.method !== 'POST') {
        response.writeHead(400).end('no session');
        return;
      }
      const transport = await newSession();
      await transport.handleRequest(request, response, parsedBody);
    },
    async setTools(next) {
      tools = [...next];
      await Promise.all([...sessions.values()].map(({ server }) => server.sendToolListChanged()));
    },
    async close() {
      await Promise.all([...sessions.values()].map(({ server }) => server.close()));
    },
  };
}

/** A running loopback MCP server. */
export interface LoopbackMcpServer extends LoopbackMcpHandler {
  /** `http://127.0.0.1:{port}/mcp` */
  readonly url: string;
}

/** Starts {@link createLoopbackMcpHandler} on 127.0.0.1, port 0, at `/mcp`. */
export async function startLoopbackMcpServer(tools: readonly LoopbackTool[]): Promise<LoopbackMcpServer> {
  const handler = createLoopbackMcpHandler(tools);
  const http = createServer((request, response) => {
    if (!request.url?.startsWith('/mcp')) {
      response.writeHead(404).end();
      return;
    }
    handler.handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    ...handler,
    requests: handler.requests,
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

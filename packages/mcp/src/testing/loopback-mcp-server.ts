// A real MCP server (the SDK's low-level `Server` over its Streamable HTTP server transport) on 127.0.0.1, whose
// tool table the test controls (replacing it sends `notifications/tools/list_changed`) and which records the
// headers of every request it receives and counts the `tools/list` requests it answers.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  type ElicitResult,
  ElicitResultSchema,
  ListToolsRequestSchema,
  type LoggingLevel,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { omitUndefined } from '@toolbus/spec';

/** A tool the loopback server offers: its listing and what a call returns. */
export interface LoopbackTool {
  readonly tool: Tool;
  /** `context.elicit` asks the client's user (an `elicitation/create` request on the call's stream). */
  readonly call: (
    args: Record<string, unknown>,
    context: LoopbackToolContext,
  ) => CallToolResult | Promise<CallToolResult>;
}

/** What a loopback tool may do besides answering: ask the client's user something (2025-11-25 elicitation). */
export interface LoopbackToolContext {
  elicit(params: Record<string, unknown>): Promise<ElicitResult>;
  /** Sends `notifications/progress` for the call's progress token (nothing when the call carried none). */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** Sends a `notifications/message` on the call's stream. */
  log(level: LoggingLevel, data: unknown): Promise<void>;
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
  /** How many `tools/list` requests it answered. */
  readonly listCount: number;
  close(): Promise<void>;
}

function recordOf(request: IncomingMessage): RecordedRequest {
  return { method: request.method ?? '', path: request.url ?? '', headers: { ...request.headers } };
}

/** Builds the handler (stateful sessions, so the server can notify on the GET stream). */
export function createLoopbackMcpHandler(initialTools: readonly LoopbackTool[]): LoopbackMcpHandler {
  let tools = [...initialTools];
  const sessions = new Map<string, { server: Server; transport: StreamableHTTPServerTransport }>();
  const requests: RecordedRequest[] = [];
  let listCount = 0;

  const newSession = async (): Promise<StreamableHTTPServerTransport> => {
    const server = new Server(
      { name: 'loopback', version: '1.0.0' },
      { capabilities: { tools: { listChanged: true }, logging: {} } },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      listCount += 1;
      return { tools: tools.map((entry) => entry.tool) };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const entry = tools.find((candidate) => candidate.tool.name === request.params.name);
      if (entry === undefined) throw new Error(`unknown tool ${request.params.name}`);
      return entry.call(request.params.arguments ?? {}, {
        // Sent on the call's own response stream, related to the call, as a 2025-11-25 server does.
        elicit: (params) =>
          extra.sendRequest({ method: 'elicitation/create', params } as never, ElicitResultSchema, {
            timeout: 600_000,
          }),
        progress: async (progress, total, message) => {
          const progressToken = extra._meta?.progressToken;
          if (progressToken === undefined) return;
          await extra.sendNotification({
            method: 'notifications/progress',
            params: omitUndefined({ progressToken, progress, total, message }),
          });
        },
        log: (level, data) =>
          extra.sendNotification({ method: 'notifications/message', params: { level, data } }),
      });
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
    get listCount() {
      return listCount;
    },
    async handle(request, response, parsedBody) {
      requests.push(recordOf(request));
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

/** Options for {@link startLoopbackMcpServer}. */
export interface LoopbackMcpServerOptions {
  /** When set, a request without exactly this Authorization header gets a 401 (it is still recorded). */
  readonly requiredAuthorization?: string;
}

/**
 * Starts {@link createLoopbackMcpHandler} on 127.0.0.1, port 0, at `/mcp`. Every request is recorded, including
 * those refused (other paths, a wrong Authorization header), so a test can prove a client never dialled.
 */
export async function startLoopbackMcpServer(
  tools: readonly LoopbackTool[],
  options: LoopbackMcpServerOptions = {},
): Promise<LoopbackMcpServer> {
  const handler = createLoopbackMcpHandler(tools);
  const http = createServer((request, response) => {
    if (!request.url?.startsWith('/mcp')) {
      handler.requests.push(recordOf(request));
      response.writeHead(404).end();
      return;
    }
    if (
      options.requiredAuthorization !== undefined &&
      request.headers.authorization !== options.requiredAuthorization
    ) {
      handler.requests.push(recordOf(request));
      response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
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
    handle: handler.handle,
    setTools: handler.setTools,
    requests: handler.requests,
    get listCount() {
      return handler.listCount;
    },
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** A tool that answers every call with `<tool name>: <arguments JSON>`, so a test sees what arrived. */
export function echoLoopbackTool(tool: Tool): LoopbackTool {
  return {
    tool,
    call: (args) => ({ content: [{ type: 'text', text: `${tool.name}: ${JSON.stringify(args)}` }] }),
  };
}

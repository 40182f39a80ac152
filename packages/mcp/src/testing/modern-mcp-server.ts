// A real MCP server that speaks ONLY the 2026-07-28 revision (the official v2 server SDK's `createMcpHandler` with
// `legacy: 'reject'`: no `initialize`, no sessions), on 127.0.0.1 over node:http. A 2025-era client gets "protocol
// version not supported" from it, so a test against it proves the client negotiated 2026-07-28.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import {
  type CallToolResult,
  createMcpHandler,
  fromJsonSchema,
  type JsonSchemaType,
  McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { RecordedRequest } from './loopback-mcp-server.ts';

/** A tool of the modern server: its listing fields and what a call returns. */
export interface ModernTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema?: Readonly<Record<string, unknown>>;
  readonly call: (
    args: Record<string, unknown>,
    context: ServerContext,
  ) => CallToolResult | Promise<CallToolResult>;
}

/** A running 2026-07-28-only MCP server. */
export interface ModernMcpServer {
  /** `http://127.0.0.1:{port}/mcp` */
  readonly url: string;
  /** Every request it received (method, path, lower-case headers). */
  readonly requests: RecordedRequest[];
  /** Replaces the tool table and publishes `notifications/tools/list_changed` to open subscriptions. */
  setTools(tools: readonly ModernTool[]): Promise<void>;
  close(): Promise<void>;
}

/** Sends a progress notification for the request being handled, when the client asked for progress. */
export async function sendProgress(
  context: ServerContext,
  progress: { readonly progress: number; readonly total?: number; readonly message?: string },
): Promise<boolean> {
  const token = context.mcpReq._meta?.progressToken;
  if (token === undefined) return false;
  await context.mcpReq.notify({
    method: 'notifications/progress',
    params: { progressToken: token, ...progress },
  });
  return true;
}

function buildServer(tools: readonly ModernTool[]): McpServer {
  const server = new McpServer(
    { name: 'modern-loopback', version: '2.0.0' },
    { capabilities: { tools: { listChanged: true } } },
  );
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        description: tool.description ?? tool.name,
        inputSchema: fromJsonSchema<Record<string, unknown>>(
          (tool.inputSchema ?? { type: 'object' }) as JsonSchemaType,
        ),
      },
      (args, context) => tool.call((args ?? {}) as Record<string, unknown>, context),
    );
  }
  return server;
}

async function toWebRequest(request: IncomingMessage, origin: string): Promise<Request> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  const method = request.method ?? 'GET';
  const chunks: Buffer[] = [];
  if (method !== 'GET' && method !== 'HEAD') for await (const chunk of request) chunks.push(chunk as Buffer);
  return new Request(new URL(request.url ?? '/', origin), {
    method,
    headers,
    ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
  });
}

async function writeWebResponse(answer: Response, response: ServerResponse): Promise<void> {
  response.writeHead(answer.status, Object.fromEntries(answer.headers));
  response.flushHeaders();
  if (answer.body === null) {
    response.end();
    return;
  }
  const body = Readable.fromWeb(answer.body as import('node:stream/web').ReadableStream);
  response.once('close', () => body.destroy());
  body.pipe(response);
}

/** Starts the server on 127.0.0.1, port 0, at `/mcp`. */
export async function startModernMcpServer(initialTools: readonly ModernTool[]): Promise<ModernMcpServer> {
  let tools = [...initialTools];
  const requests: RecordedRequest[] = [];
  const handler = createMcpHandler(() => buildServer(tools), { legacy: 'reject' });
  const http = createServer((request, response) => {
    requests.push({ method: request.method ?? '', path: request.url ?? '', headers: { ...request.headers } });
    if (!request.url?.startsWith('/mcp')) {
      response.writeHead(404).end();
      return;
    }
    toWebRequest(request, 'http://127.0.0.1')
      .then((webRequest) => handler.fetch(webRequest))
      .then((answer) => writeWebResponse(answer, response))
      .catch(() => {
        if (!response.headersSent) response.writeHead(500);
        response.end();
      });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    async setTools(next) {
      tools = [...next];
      handler.notify.toolsChanged();
    },
    async close() {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

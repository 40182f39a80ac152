// A real MCP server (the SDK's `Server` over its Streamable HTTP transport) on 127.0.0.1, port 0, whose tool table
// the test can replace (the server then sends `notifications/tools/list_changed`). Counts `tools/list` requests.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';

/** A running loopback MCP server. */
export interface LoopbackMcpServer {
  readonly url: string;
  /** How many `tools/list` requests it answered. */
  readonly listCount: number;
  /** The Authorization header of every request ('' when absent). */
  readonly authorizations: readonly string[];
  /** Replaces the tools and notifies every session. */
  setTools(tools: readonly Tool[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the server; each tool answers `<tool name>: <arguments JSON>`. With `requiredAuthorization`, any request
 * without exactly that Authorization header gets a 401.
 */
export async function startLoopbackMcpServer(
  initialTools: readonly Tool[],
  options: { readonly requiredAuthorization?: string } = {},
): Promise<LoopbackMcpServer> {
  let tools = [...initialTools];
  const authorizations: string[] = [];
  let listCount = 0;
  const sessions = new Map<string, { server: Server; transport: StreamableHTTPServerTransport }>();
  const newSession = async () => {
    const server = new Server({ name: 'loopback', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      listCount += 1;
      return { tools };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request) => ({
      content: [{ type: 'text', text: `${request.params.name}: ${JSON.stringify(request.params.arguments ?? {})}` }],
    }));
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
  const http = createServer((request, response) => {
    authorizations.push(request.headers.authorization ?? '');
    if (options.requiredAuthorization !== undefined && request.headers.authorization !== options.requiredAuthorization) {
      response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const sessionId = request.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    const handle = async () => {
      if (existing !== undefined) return existing.transport.handleRequest(request, response);
      if (request.method !== 'POST') {
        response.writeHead(400).end('no session');
        return;
      }
      return (await newSession()).handleRequest(request, response);
    };
    handle().catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    get listCount() {
      return listCount;
    },
    authorizations,
    async setTools(next) {
      tools = [...next];
      await Promise.all([...sessions.values()].map(({ server }) => server.sendToolListChanged()));
    },
    async close() {
      await Promise.all([...sessions.values()].map(({ server }) => server.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

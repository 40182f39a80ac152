// The world of the MCP OAuth tests: an authorization server and an OAuth-protected MCP server on loopback, a
// scripted model, and a toolbus server (API keys, SQLite) with a bootstrapped admin, reached over HTTP.
import assert from 'node:assert/strict';
import { createGuardedFetch } from '@toolbus/core/node';
import {
  type ScriptedModelServer,
  type ScriptedModelServerOptions,
  startScriptedModelServer,
} from '@toolbus/core/testing';
import type { Storage } from '@toolbus/storage';
import { whoamiTool } from '../../../mcp/src/__fixtures__/authorize-loopback-user.ts';
import {
  type LoopbackOAuthServers,
  startLoopbackOAuthServers,
} from '../../../mcp/src/__fixtures__/loopback-oauth-servers.ts';
import { createServer, type ToolbusServer } from '../create-server.ts';
import { type ListeningServer, listen } from '../listen.ts';
import { callApi, jsonOf } from './api-calls.ts';
import { openTestStorage, readSse } from './test-server.ts';

/** The running world. */
export interface McpOAuthWorld {
  readonly oauthServers: LoopbackOAuthServers;
  readonly model: ScriptedModelServer;
  readonly storage: Storage;
  readonly databasePath: string;
  readonly server: ToolbusServer;
  readonly http: ListeningServer;
  readonly adminKey: string;
  /** A request to the toolbus server as `key`'s user; redirects are not followed. */
  call(method: string, path: string, key: string | undefined, body?: unknown): Promise<Response>;
  /** Adds an MCP server on the protected MCP server, as the admin (`oauth` unless said); its id. */
  addMcpServer(name: string, authType?: 'oauth' | 'none'): Promise<string>;
    startConnecting(
    key: string,
    serverId: string,
    body?: { returnTo?: string },
  ): Promise<{ status: string; authorizationUrl: string; cookie: string }>;
    isConnected(key: string, serverId: string): Promise<boolean>;
  /**
   * The admin approves the server's `whoami` tool (after a review, which uses the admin's own tokens) and offers it
   * in a new persona; the persona's id.
   */
  offerWhoami(serverId: string, personaName: string): Promise<string>;
  /** The packets of one turn ("Who am I?") of `key`'s user in a new chat with the persona, and its answer. */
  whoAmITurn(key: string, personaId: string): Promise<{ packets: Record<string, unknown>[]; answer: string }>;
  close(): Promise<void>;
}

/** Starts the world; `handler` scripts the model, `issParameter` makes the authorization server send `iss`. */
export async function startMcpOAuthWorld(options: {
  readonly handler: NonNullable<ScriptedModelServerOptions['handler']>;
  readonly issParameter?: boolean;
}): Promise<McpOAuthWorld> {
  const oauthServers = await startLoopbackOAuthServers([whoamiTool], { issParameter: options.issParameter ?? false });
  const model = await startScriptedModelServer({ handler: options.handler });
  const { storage, path: databasePath } = await openTestStorage();
  const server = await createServer({
    storage,
    auth: 'api-keys',
    defaultModel: `openai-compatible:${model.url}/v1#scripted`,
    fetch: createGuardedFetch({ level: 'strict', allow: ['127.0.0.1'] }) as typeof fetch,
    limits: { requestsPerMinute: 100_000 },
  });
  const http = await listen(server, { port: 0 });
  const bootstrap = await server.access.bootstrapAdmin('admin@example.com');
  assert.ok(bootstrap);
  const world: McpOAuthWorld = {
    oauthServers,
    model,
    storage,
    databasePath,
    server,
    http,
    adminKey: bootstrap.key,
    call: (method, path, key, body) =>
      callApi({ baseUrl: http.url, method, path, key, body, redirect: 'manual' }),
    addMcpServer: (name, authType = 'oauth') => addMcpServer(world, name, authType),
    startConnecting: (key, serverId, body = {}) => startConnecting(world, key, serverId, body),
    isConnected: (key, serverId) => isConnected(world, key, serverId),
    offerWhoami: (serverId, personaName) => offerWhoami(world, serverId, personaName),
    whoAmITurn: (key, personaId) => whoAmITurn(world, key, personaId),
    async close() {
      await http.close();
      await storage.close();
      await model.close();
      await oauthServers.close();
    },
  };
  return world;
}

// The world's helpers, as its methods (see {@link McpOAuthWorld}).

async function addMcpServer(
  world: McpOAuthWorld,
  name: string,
  authType: 'oauth' | 'none',
): Promise<string> {
  const created = await jsonOf<{ id: string }>(
    await world.call('POST', '/v1/admin/mcp-servers', world.adminKey, {
      name,
      endpoint: { transport: 'streamable-http', url: world.oauthServers.mcpUrl },
      authType,
    }),
    201,
  );
  return created.id;
}

/** Starts connecting as `key`'s user: the answer, and the binding cookie the starting browser now holds. */
async function startConnecting(
  world: McpOAuthWorld,
  key: string,
  serverId: string,
  body: { returnTo?: string },
): Promise<{ status: string; authorizationUrl: string; cookie: string }> {
  const response = await world.call('POST', `/v1/mcp-servers/${serverId}/connection`, key, body);
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const start = await jsonOf<{ status: string; authorizationUrl: string }>(response, 200);
  return { ...start, cookie };
}

/** Whether `key`'s user holds tokens for the server (the connection status route). */
async function isConnected(world: McpOAuthWorld, key: string, serverId: string): Promise<boolean> {
  const status = await jsonOf<{ connected: boolean }>(
    await world.call('GET', `/v1/mcp-servers/${serverId}/connection`, key),
    200,
  );
  return status.connected;
}

async function offerWhoami(world: McpOAuthWorld, serverId: string, personaName: string): Promise<string> {
  const admin = world.adminKey;
  await jsonOf(await world.call('POST', `/v1/admin/mcp-servers/${serverId}/tools/whoami/approval`, admin), 200);
  const persona = await jsonOf<{ id: string }>(
    await world.call('POST', '/v1/admin/personas', admin, { name: personaName }),
    201,
  );
  await jsonOf(
    await world.call('POST', `/v1/admin/personas/${persona.id}/tools`, admin, {
      kind: 'mcp',
      serverId,
      toolName: 'whoami',
    }),
    201,
  );
  return persona.id;
}

async function whoAmITurn(
  world: McpOAuthWorld,
  key: string,
  personaId: string,
): Promise<{ readonly packets: Record<string, unknown>[]; readonly answer: string }> {
  const chat = await jsonOf<{ id: string }>(await world.call('POST', '/v1/chats', key, { personaId }), 201);
  const events = await readSse(
    await world.call('POST', `/v1/chats/${chat.id}/messages`, key, { content: 'Who am I?' }),
  );
  const packets = events.map((event) => (JSON.parse(event.data) as { obj: Record<string, unknown> }).obj);
  const answer = packets
    .filter((packet) => packet.type === 'message-delta')
    .map((packet) => packet.content)
    .join('');
  return { packets, answer };
}

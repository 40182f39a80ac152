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
import { openTestStorage } from './test-server.ts';

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
  return {
    oauthServers,
    model,
    storage,
    databasePath,
    server,
    http,
    adminKey: bootstrap.key,
    call: (method, path, key, body) =>
      fetch(`${http.url}${path}`, {
        method,
        redirect: 'manual',
        headers: {
          ...(key ? { authorization: `Bearer ${key}` } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    async close() {
      await http.close();
      await storage.close();
      await model.close();
      await oauthServers.close();
    },
  };
}

/** The response's JSON body, after asserting its status (the body is the message when it differs). */
export async function jsonOf<T>(response: Response, status: number): Promise<T> {
  const text = await response.text();
  assert.equal(response.status, status, text);
  return (text ? JSON.parse(text) : undefined) as T;
}

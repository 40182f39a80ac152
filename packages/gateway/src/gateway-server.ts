import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listenHttpServer } from '@toolbus/spec';
import { createAdmission } from './admit-request.ts';
import { forwardChatCompletions, readChatCompletionsCall } from './chat-completions-route.ts';
import { countMessageTokens } from './count-tokens-route.ts';
import type { GatewayContext } from './gateway-context.ts';
import { type ErrorDialect, sendError } from './gateway-error.ts';
import type { GatewayOptions } from './gateway-options.ts';
import { forwardMessages } from './messages-route.ts';
import { ModelAliases } from './model-aliases.ts';
import { listModels, retrieveModel } from './models-route.ts';
import { forwardPassThrough, PASS_THROUGH_PATHS } from './pass-through-route.ts';
import { type RequestSeen, watchRequest } from './request-log.ts';
import { ServedModelNames } from './served-models.ts';
import { GatewayConfigError, resolveUpstreams } from './upstream.ts';
import { createUpstreamDialects } from './upstream-dialects.ts';

const MODEL_PATH_PREFIX = '/v1/models/';

/** The paths the gateway answers (besides `/health`), for a server that mounts it beside its own routes. */
export const GATEWAY_PATHS: readonly string[] = [
  '/v1/chat/completions',
  '/v1/messages',
  '/v1/messages/count_tokens',
  '/v1/models',
  ...PASS_THROUGH_PATHS,
];

/** The path prefixes the gateway answers too: `/v1/models/{id}`, a model's own entry. */
export const GATEWAY_PATH_PREFIXES: readonly string[] = [MODEL_PATH_PREFIX];

/** A request handler for `node:http` (also mountable in another server), and what it needs to stop. */
export interface GatewayHandler {
  (request: IncomingMessage, response: ServerResponse): void;
  /** Requests being answered now. */
  readonly inFlight: () => number;
}

/**
 * The recovery gateway's routes: `POST /v1/chat/completions` (OpenAI), `POST /v1/messages` (Anthropic),
 * `POST /v1/messages/count_tokens`, `GET /v1/models`, `GET /health`. Throws `GatewayConfigError` at once when an
 * upstream is misconfigured.
 */
export function createGatewayHandler(options: GatewayOptions): GatewayHandler {
  const upstreams = resolveUpstreams(options.upstreams, options.env ?? process.env);
  const log = options.log ?? (() => {});
  const context: GatewayContext = {
    upstreams,
    aliases: modelAliasesOf(options.models),
    servedNames: new ServedModelNames({ upstreams, log }),
    maxResponseBytes: options.maxResponseBytes ?? 64 * 1024 * 1024,
    upstreamTimeoutMs: options.upstreamTimeoutMs ?? 300_000,
    log,
    dialectsFor: createUpstreamDialects(options.fetch),
  };
  const admit = createAdmission(options);
  let inFlight = 0;

  async function route(
    request: IncomingMessage,
    response: ServerResponse,
    context: GatewayContext,
    seen: RequestSeen,
  ): Promise<void> {
    const { path } = seen;
    if (path === '/health' && request.method === 'GET') {
      const text = JSON.stringify({
        status: 'ok',
        upstreams: context.upstreams.map((upstream) => upstream.name),
      });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(text);
      return;
    }
    const dialect = dialectOf(request, path);
    const modelId = path.startsWith(MODEL_PATH_PREFIX) ? modelIdOf(path) : undefined;
    if (!GATEWAY_PATHS.includes(path) && modelId === undefined) {
      sendError(response, {
        dialect,
        status: 404,
        message: `No route ${path}: the gateway serves ${[...GATEWAY_PATHS, `${MODEL_PATH_PREFIX}{id}`].join(', ')}.`,
      });
      return;
    }
    const method = path === '/v1/models' || modelId !== undefined ? 'GET' : 'POST';
    if (request.method !== method) {
      sendError(response, {
        dialect,
        status: 405,
        message: `${path} takes ${method}.`,
        headers: { allow: method },
      });
      return;
    }
    const bytes = await admit(request, response, dialect, seen);
    if (bytes === undefined) return;
    if (path === '/v1/models') return listModels(context, response, dialect);
    if (modelId !== undefined) return retrieveModel(context, modelId, response, dialect);
    if (path === '/v1/completions' || path === '/v1/embeddings')
      return forwardPassThrough({
        context,
        path,
        bytes,
        request,
        response,
      });
    if (path === '/v1/messages/count_tokens') return countMessageTokens({ context, bytes, response });
    if (path === '/v1/messages') {
      return forwardMessages({
        context,
        bytes,
        request,
        response,
      });
    }
    const call = readChatCompletionsCall(bytes, response);
    if (call === undefined) return;
    await forwardChatCompletions({ context, call, request, response });
  }

  const handler = ((request: IncomingMessage, response: ServerResponse) => {
    inFlight += 1;
    const { seen, context: requestContext } = watchRequest(context, request, response);
    response.once('close', () => {
      inFlight -= 1;
    });
    route(request, response, requestContext, seen).catch((error: unknown) => {
      context.log({ event: 'internal-error', reason: error instanceof Error ? error.name : 'unknown' });
      sendError(response, {
        dialect: dialectOf(request, (request.url ?? '/').split('?')[0] ?? '/'),
        status: 500,
        message: 'The gateway failed on this request; see its log.',
      });
    });
  }) as GatewayHandler;
  Object.defineProperty(handler, 'inFlight', { value: () => inFlight });
  return handler;
}

// Anthropic's clients (the SDK, Claude Code) send `anthropic-version` on every request, `/v1/models` included:
// they are answered, errors too, in Anthropic's format.
function dialectOf(request: IncomingMessage, path: string): ErrorDialect {
  if (path.startsWith('/v1/messages')) return 'anthropic';
  if (
    (path === '/v1/models' || path.startsWith(MODEL_PATH_PREFIX)) &&
    request.headers['anthropic-version'] !== undefined
  )
    return 'anthropic';
  return 'openai';
}

// The id in `/v1/models/{id}`: percent-decoded (the `openai` client encodes it), and may hold `/` (`Qwen/Qwen3-8B`).
function modelIdOf(path: string): string | undefined {
  try {
    const id = decodeURIComponent(path.slice(MODEL_PATH_PREFIX.length));
    return id === '' ? undefined : id;
  } catch {
    return undefined;
  }
}

// Aliases from the options, checked as the config schema checks them: a bad one stops the start, in words.
function modelAliasesOf(models: Readonly<Record<string, string>> | undefined): ModelAliases {
  try {
    return new ModelAliases(models);
  } catch (error) {
    throw new GatewayConfigError((error as Error).message);
  }
}

/** A running gateway. */
export interface RunningGateway {
  /** `http://host:port` (clients use `${url}/v1` as their base URL). */
  readonly url: string;
  readonly server: Server;
  /** Stops taking connections, lets requests in flight finish (up to `graceMs`), then closes the rest. */
  close(graceMs?: number): Promise<void>;
}

/** Starts the gateway on `host:port` (default 127.0.0.1, any free port). */
export async function startGateway(
  options: GatewayOptions & { readonly host?: string; readonly port?: number },
): Promise<RunningGateway> {
  const handler = createGatewayHandler(options);
  const server = createServer({ keepAliveTimeout: 65_000, requestTimeout: 0 }, handler);
  const url = await listenHttpServer(server, { port: options.port, host: options.host });
  return {
    url,
    server,
    async close(graceMs = 10_000) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const deadline = Date.now() + graceMs;
      while (handler.inFlight() > 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 25));
      server.closeAllConnections();
      await closed;
    },
  };
}

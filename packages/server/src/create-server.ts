import type { LanguageModelV4 } from '@ai-sdk/provider';
import { resolveLanguageModel } from '@toolbus/core';
import { createGuardedFetch, createNodeHttpFetch } from '@toolbus/core/node';
import type { McpRefreshLock } from '@toolbus/mcp';
import { omitUndefined, ToolbusError } from '@toolbus/spec';
import { DEFAULT_ORGANIZATION_ID, personaNameKey, type User } from '@toolbus/storage';
import { Hono } from 'hono';
import { z } from 'zod';
import { ApprovalHub } from './approvals/approval-hub.ts';
import { registerApprovalRoutes } from './approvals/approval-routes.ts';
import { ConnectedAppAdmin } from './apps/connected-app-admin.ts';
import { registerConnectedAppRoutes } from './apps/connected-app-routes.ts';
import { registerAccessRoutes } from './auth/access-routes.ts';
import { AccessService } from './auth/access-service.ts';
import { registerInvitationRoutes } from './auth/invitation-routes.ts';
import { registerOrganizationRoutes } from './auth/organization-routes.ts';
import { OrganizationService } from './auth/organization-service.ts';
import { parsePublicOrigin } from './auth/public-origin.ts';
import { type Authenticate, createRequestGuard, isLoopbackHostHeader } from './auth/request-guard.ts';
import { turnToolOptionsFor } from './built-in-tools/turn-tool-options.ts';
import { registerChatRoutes } from './chats/chat-routes.ts';
import { ChatService } from './chats/chat-service.ts';
import { TurnRunner } from './chats/turn-runner.ts';
import { toErrorAnswer } from './http/error-answer.ts';
import type { Principal } from './http/principal.ts';
import { API_KEY_SCOPES } from './http/principal.ts';
import { requestBodyLimit } from './http/request-body-limit.ts';
import { RouteRegistry } from './http/route-registry.ts';
import { ServerError } from './http/server-error.ts';
import { mountWebApp } from './http/web-app-routes.ts';
import { ADMIN_UPLOAD_PATHS, registerAdminRoutes } from './library/admin-routes.ts';
import { LibraryAdmin } from './library/library-admin.ts';
import { registerMcpOAuthRoutes } from './library/mcp-oauth-routes.ts';
import { MCP_OAUTH_CALLBACK_PATH, McpOAuthService } from './library/mcp-oauth-service.ts';
import { FILE_UPLOAD_PATH, registerUserDataRoutes } from './library/user-data-routes.ts';
import { UserDataService } from './library/user-data-service.ts';
import { describeMcpEndpoint, mountMcpEndpoint } from './mcp/mcp-endpoint.ts';
import { healthReport } from './observability/health-component.ts';
import { repeatLimitedWarnings } from './observability/repeat-limited-warnings.ts';
import { InProcessRequestRateLimit } from './scale-out/request-rate-limit.ts';
import { singleFlight } from './scale-out/single-flight-lock.ts';
import { type ServerLogger, silentLogger } from './server-logger.ts';
import { DEFAULT_SYSTEM_PROMPT, type ServerAuthMode, type ServerOptions } from './server-options.ts';
import { registerUiRoutes } from './ui/ui-routes.ts';

/** The version in the OpenAPI document. */
export const SERVER_API_VERSION = '0.1.0';

/** The email of the single user of `local` mode. */
export const LOCAL_USER_EMAIL = 'local@toolbus.invalid';

/** A toolbus server: the Hono app and the parts behind it. Serve `app.fetch` with {@link listen} or any adapter. */
export interface ToolbusServer {
  readonly app: Hono;
  readonly auth: ServerAuthMode;
  readonly chats: ChatService;
  readonly access: AccessService;
  /** Organisations and their members. */
  readonly organizations: OrganizationService;
  readonly userData: UserDataService;
  /** The admin operations over the library (the CLI's config, index and skills commands can call these). */
  readonly library: LibraryAdmin;
  /** The per-user OAuth connections to MCP servers. */
  readonly mcpOAuth: McpOAuthService;
  readonly turns: TurnRunner;
  /** Egress approvals waiting for their chat's owner. */
  readonly approvals: ApprovalHub;
  /** The connected-app operations (`toolbus apps` calls the same). */
  readonly connectedApps: ConnectedAppAdmin;
  readonly routes: RouteRegistry;
  readonly logger: ServerLogger;
  /** The OpenAPI document of every route (also served at `/openapi.json`). */
  openApiDocument(serverUrl?: string): Record<string, unknown>;
  /** Stops every running turn (each writes its end) ; storage stays open: its owner closes it. */
  close(): Promise<void>;
}

/**
 * Builds the server over a storage: closes the turns a previous process left running (each gets a stop packet and
 * a clear reason), then serves chats, the admin API and the OpenAPI document. Nothing a client sends can throw out
 * of a handler: every failure is a JSON error with a status (4xx naming the field, or a 500 without details).
 */
export async function createServer(options: ServerOptions): Promise<ToolbusServer> {
  const logger = options.logger ?? silentLogger;
  const auth = options.auth ?? 'api-keys';
  const storage = options.storage;
  const scaleOut = options.scaleOut;
  const turns = new TurnRunner({
    storage,
    logger,
    scaleOut,
    packetFlushMs: options.packetFlushMs,
    storageRetry: options.storageRetry,
  });
  if (scaleOut) {
    // Other replicas may be running the turns storage lists as running: a dead worker's turns are closed when
    // the queue delivers them again, not here.
    await turns.listen();
  } else {
    const closed = await turns.closeInterruptedTurns();
    if (closed > 0) logger.warn('server.closed_interrupted_turns', { count: closed });
  }

  // One model object per model name for the process: a provider's model builds its stream-chunk schemas when it is
  // made (about a millisecond), and it holds no per-call state, so every turn can share it.
  const resolvedModels = new Map<string, LanguageModelV4>();
  // One kept-alive connection pool for every model stream, read over node:http: undici's fetch costs several times
  // more per streamed chunk, and each token is a chunk (see createNodeHttpFetch).
  const modelFetch = createNodeHttpFetch();
  const resolveModel =
    options.resolveModel ??
    ((name: string): LanguageModelV4 => {
      let model = resolvedModels.get(name);
      if (model === undefined) {
        model = resolveLanguageModel(name, {
          env: options.modelEnvironment ?? process.env,
          fetch: modelFetch,
        });
        resolvedModels.set(name, model);
      }
      return model;
    });
  const fetch = options.fetch ?? (createGuardedFetch({ level: 'strict' }) as typeof globalThis.fetch);
  const limits = options.limits ?? {};
  // Tokens are refreshed, never re-authorized, during a turn or a review: the URL only names this server's callback.
  const publicOrigin =
    options.publicOrigin === undefined ? undefined : parsePublicOrigin(options.publicOrigin);
  const mcpOAuthRedirectUrl = new URL(MCP_OAUTH_CALLBACK_PATH, publicOrigin ?? 'http://127.0.0.1').href;
  // One refresh token is spent once across replicas: a rotating authorization server revokes a reused one.
  const mcpOAuthRefreshLock: McpRefreshLock | undefined = scaleOut
    ? (key, work) => singleFlight({ lock: scaleOut.locks, key }, work)
    : undefined;
  const approvals = new ApprovalHub(
    omitUndefined({ timeoutMs: options.approvalTimeoutMs, relay: scaleOut?.approvals }),
  );
  await approvals.listen();
  const chats = new ChatService({
    approvals,
    ...omitUndefined({ contextWindowTokens: options.contextWindowTokens }),
    ...omitUndefined({ documentIndex: options.documentIndex }),
    storage,
    runner: turns,
    ...(scaleOut ? { queue: scaleOut.queue } : {}),
    defaultModel: options.defaultModel,
    allowedModels: new Set([options.defaultModel, ...(options.allowedModels ?? [])]),
    resolveModel,
    builtInToolFactories: options.builtInToolFactories ?? (() => new Map()),
    ...(options.turnSettings
      ? { turnToolOptions: turnToolOptionsFor(options.turnSettings, options.modelEnvironment ?? process.env) }
      : {}),
    fetch,
    logger: repeatLimitedWarnings(logger),
    ...omitUndefined({ assemblyCache: options.assemblyCache }),
    systemPrompt: options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
    defaultPersona: async () => {
      if (options.defaultPersonaId) return storage.personas.get(options.defaultPersonaId);
      const personas = await storage.personas.list();
      // Names are unique ignoring case (the storage's rule), so at most one persona is "default".
      return personas.find((persona) => personaNameKey(persona.name) === 'default') ?? personas[0];
    },
    concurrentTurnsPerUser: limits.concurrentTurnsPerUser ?? 4,
    ...omitUndefined({ maxCycles: options.maxCycles }),
    ...(options.recordToolContentInSpans ? { recordToolContent: true } : {}),
    mcpOAuthRedirectUrl,
    ...omitUndefined({ mcpOAuthRefreshLock }),
  });

  const access = new AccessService(storage);
  const connectedApps = new ConnectedAppAdmin(storage);
  const userData = new UserDataService(storage);
  const library = new LibraryAdmin({
    storage,
    fetch,
    ...omitUndefined({
      skills: options.skills,
      documentIndex: options.documentIndex,
      documentRoots: options.documentRoots,
      settings: options.settings,
    }),
    mcpOAuthRedirectUrl,
    ...omitUndefined({ mcpOAuthRefreshLock }),
  });
  let authenticate: Authenticate;
  if (auth === 'local') {
    const user: User =
      options.localUser ??
      (await storage.users.getByEmail(LOCAL_USER_EMAIL)) ??
      (await storage.users.create({ email: LOCAL_USER_EMAIL, name: 'You' }));
    const principal: Principal = {
      user,
      role: 'admin',
      scopes: API_KEY_SCOPES,
      via: 'local',
      organization: { id: DEFAULT_ORGANIZATION_ID, role: 'admin' },
    };
    authenticate = async (context) => {
      if (!isLoopbackHostHeader(context.req.header('host'))) {
        throw new ServerError({
          code: 'forbidden',
          field: 'header.host',
          message:
            'header.host: this server runs without keys and only answers requests for a loopback host name.',
        });
      }
      return principal;
    };
  } else {
    authenticate = (context) => access.authenticate(context);
  }

  const routes = new RouteRegistry();
  registerChatRoutes(routes, chats, turns, { heartbeatMs: options.heartbeatMs });
  registerAccessRoutes(routes, access, { publicOrigin });
  const organizations = new OrganizationService(storage);
  registerOrganizationRoutes(routes, organizations);
  registerInvitationRoutes(routes, storage);
  registerUserDataRoutes(routes, userData);
  registerUiRoutes(routes, chats, turns);
  registerAdminRoutes(routes, library);
  const mcpOAuth = new McpOAuthService({
    storage,
    fetch,
    ...omitUndefined({ refreshLock: mcpOAuthRefreshLock }),
  });
  registerMcpOAuthRoutes(routes, mcpOAuth, { publicOrigin });
  registerConnectedAppRoutes(routes, connectedApps);
  registerApprovalRoutes(routes, approvals);

  const app = new Hono();
  const maxBodyBytes = limits.maxBodyBytes ?? 1024 * 1024;
  const maxUploadBytes = limits.maxUploadBytes ?? 20 * 1024 * 1024;
  const jsonLimit = requestBodyLimit(maxBodyBytes);
  const uploadPaths = new Set<string>([FILE_UPLOAD_PATH, ...ADMIN_UPLOAD_PATHS]);
  const uploadLimit = requestBodyLimit(maxUploadBytes);
  app.use('*', (context, next) =>
    (uploadPaths.has(context.req.path) ? uploadLimit : jsonLimit)(context, next),
  );
  app.onError((error, context) => {
    const answer = toErrorAnswer(error);
    const where = { method: context.req.method, path: context.req.routePath };
    if (answer.status === 500) {
      logger.error('request.failed', {
        ...where,
        error: ToolbusError.isInstance(error) ? error.code : 'internal_error',
      });
    } else if (!ServerError.isInstance(error)) {
      // A rule or a dependency refused it (an SSRF block, an MCP server that would not start): not a bug.
      logger.warn('request.refused', { ...where, status: answer.status, error: answer.code });
    }
    if (answer.retryAfterSeconds !== undefined)
      context.header('retry-after', String(answer.retryAfterSeconds));
    return context.json(
      {
        error: {
          code: answer.code,
          message: answer.message,
          ...omitUndefined({ field: answer.field }),
        },
      },
      answer.status as 400,
    );
  });
  app.notFound((context) =>
    context.json(
      { error: { code: 'not_found', message: `No route ${context.req.method} ${context.req.path}.` } },
      404,
    ),
  );
  // Served before the guard (health checks and document fetches carry no key), and documented like the rest.
  routes.describe({
    method: 'get',
    path: '/health',
    operationId: 'health',
    summary: 'Liveness: the process serves, and how many turns it runs',
    tag: 'server',
    access: { kind: 'public' },
    responses: {
      200: {
        description:
          'Serving. With components (a sandbox pool): `status` is degraded while one of them is degraded or down',
        schema: z.object({
          ok: z.literal(true),
          runningTurns: z.number(),
          status: z.enum(['ok', 'degraded']).optional(),
          components: z
            .record(
              z.string(),
              z.object({ status: z.enum(['ok', 'degraded', 'down']), detail: z.string().optional() }),
            )
            .optional(),
        }),
      },
    },
  });
  routes.describe({
    method: 'get',
    path: '/openapi.json',
    operationId: 'openApiDocument',
    summary: "This server's OpenAPI document",
    tag: 'server',
    access: { kind: 'public' },
    responses: { 200: { description: 'The OpenAPI 3.1 document', contentType: 'application/json' } },
  });
  describeMcpEndpoint(routes);
  app.get('/health', (context) =>
    context.json(healthReport({ runningTurns: turns.running, components: options.healthComponents ?? [] })),
  );
  const openApiDocument = (serverUrl?: string) =>
    routes.openApiDocument({
      title: 'toolbus',
      version: SERVER_API_VERSION,
      ...(serverUrl ? { serverUrl } : {}),
    });
  app.get('/openapi.json', (context) => context.json(openApiDocument(new URL(context.req.url).origin)));
  // With replicas, one allowance per user across all of them (counted in the shared backend).
  const guard = createRequestGuard(authenticate, {
    limit: scaleOut?.rateLimit ?? new InProcessRequestRateLimit(),
    perMinute: limits.requestsPerMinute ?? 600,
  });
  routes.mount(app, guard);
  mountMcpEndpoint(app, { chats, guard, version: SERVER_API_VERSION });
  if (options.webRoot) mountWebApp(app, options.webRoot);
  let sweeper: NodeJS.Timeout | undefined;
  if (scaleOut && scaleOut.worker !== false) {
    await scaleOut.queue.work((job, delivery) => chats.runQueued(job, delivery));
    // Turns recorded as running that no job and no worker has (their API replica died before queueing them):
    // closed now and then periodically, by one worker replica at a time.
    const graceMs = scaleOut.abandonedTurnSweep?.graceMs ?? 60_000;
    let sweeping = false;
    const sweep = async () => {
      if (sweeping) return;
      sweeping = true;
      try {
        const closed = await turns.closeAbandonedTurns({ graceMs });
        if (closed > 0) logger.warn('server.closed_abandoned_turns', { count: closed });
      } catch (error) {
        logger.warn('server.abandoned_sweep_failed', {
          error: ToolbusError.isInstance(error) ? error.code : 'internal_error',
        });
      } finally {
        sweeping = false;
      }
    };
    await sweep();
    sweeper = setInterval(() => void sweep(), scaleOut.abandonedTurnSweep?.intervalMs ?? 60_000);
    sweeper.unref();
  }

  return {
    app,
    auth,
    chats,
    access,
    organizations,
    userData,
    library,
    mcpOAuth,
    turns,
    approvals,
    connectedApps,
    routes,
    logger,
    openApiDocument,
    async close() {
      clearInterval(sweeper);
      // A worker stops taking jobs first; the turns it runs are then stopped and write their ends.
      const closingQueue = scaleOut?.queue.close();
      await turns.stopAll();
      await closingQueue;
      await approvals.close();
    },
  };
}

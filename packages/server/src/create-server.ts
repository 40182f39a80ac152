import { createGuardedFetch } from '@toolbus/core/node';
import type { McpRefreshLock } from '@toolbus/mcp';
import { omitUndefined } from '@toolbus/spec';
import { Hono } from 'hono';
import { ApprovalHub } from './approvals/approval-hub.ts';
import { registerApprovalRoutes } from './approvals/approval-routes.ts';
import { ConnectedAppAdmin } from './apps/connected-app-admin.ts';
import { registerConnectedAppRoutes } from './apps/connected-app-routes.ts';
import { registerAccessRoutes } from './auth/access-routes.ts';
import { AccessService } from './auth/access-service.ts';
import { registerInvitationRoutes } from './auth/invitation-routes.ts';
import { localAuthentication } from './auth/local-auth.ts';
import { registerOrganizationRoutes } from './auth/organization-routes.ts';
import { OrganizationService } from './auth/organization-service.ts';
import { parsePublicOrigin } from './auth/public-origin.ts';
import { type Authenticate, createRequestGuard } from './auth/request-guard.ts';
import { availableBuiltInIds } from './built-in-tools/available-built-ins.ts';
import { turnToolOptionsFor } from './built-in-tools/turn-tool-options.ts';
import { type AbandonedTurnSweeper, startAbandonedTurnSweeper } from './chats/abandoned-turn-sweeper.ts';
import { registerChatRoutes } from './chats/chat-routes.ts';
import { ChatService } from './chats/chat-service.ts';
import { defaultPersonaOf } from './chats/default-persona.ts';
import { createModelResolver } from './chats/model-resolver.ts';
import { startTurnRunner } from './chats/start-turn-runner.ts';
import type { TurnRunner } from './chats/turn-runner.ts';
import { ElicitationHub } from './elicitations/elicitation-hub.ts';
import { registerElicitationRoutes } from './elicitations/elicitation-routes.ts';
import { answerErrorsAsJson } from './http/error-answers.ts';
import { limitRequestBodies } from './http/request-body-limit.ts';
import { RouteRegistry } from './http/route-registry.ts';
import { mountWebApp } from './http/web-app-routes.ts';
import { ADMIN_UPLOAD_PATHS, registerAdminRoutes } from './library/admin-routes.ts';
import { registerDocumentTextRoute } from './library/document-text-route.ts';
import { LibraryAdmin } from './library/library-admin.ts';
import {
  type McpClientMetadata,
  registerMcpClientMetadataRoute,
  resolveMcpClientMetadata,
} from './library/mcp-client-metadata.ts';
import { registerMcpCredentialRoutes } from './library/mcp-credential-routes.ts';
import { registerMcpOAuthRoutes } from './library/mcp-oauth-routes.ts';
import { MCP_OAUTH_CALLBACK_PATH, McpOAuthService } from './library/mcp-oauth-service.ts';
import { registerMcpServerAccessRoutes } from './library/mcp-server-access-routes.ts';
import { FILE_UPLOAD_PATH, registerUserDataRoutes } from './library/user-data-routes.ts';
import { UserDataService } from './library/user-data-service.ts';
import { describeMcpEndpoint, mountMcpEndpoint } from './mcp/mcp-endpoint.ts';
import { repeatLimitedWarnings } from './observability/repeat-limited-warnings.ts';
import { releaseMemoryAtRest } from './release-memory-at-rest.ts';
import { InProcessRequestRateLimit } from './scale-out/request-rate-limit.ts';
import { singleFlight } from './scale-out/single-flight-lock.ts';
import { type ServerLogger, silentLogger } from './server-logger.ts';
import { DEFAULT_SYSTEM_PROMPT, type ServerAuthMode, type ServerOptions } from './server-options.ts';
import { mountServerRoutes, SERVER_API_VERSION } from './server-routes.ts';
import { registerUiRoutes } from './ui/ui-routes.ts';

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
  /** MCP servers' questions waiting for their chat's owner. */
  readonly elicitations: ElicitationHub;
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
  // Checked before anything starts: a bad setting refuses the server without leaving a runner behind.
  const mcpClientMetadata = resolveMcpClientMetadata({
    url: options.mcpClientMetadataUrl,
    publicOrigin: options.publicOrigin === undefined ? undefined : parsePublicOrigin(options.publicOrigin),
  });
  const turns = await startTurnRunner({
    storage,
    logger,
    scaleOut,
    packetFlushMs: options.packetFlushMs,
    storageRetry: options.storageRetry,
  });
  const resolveModel = options.resolveModel ?? createModelResolver(options.modelEnvironment ?? process.env);
  const fetch = options.fetch ?? (createGuardedFetch({ level: 'strict' }) as typeof globalThis.fetch);
  const limits = options.limits ?? {};
  // Tokens are refreshed, never re-authorized, during a turn or a review: the URL only names this server's callback.
  const publicOrigin =
    options.publicOrigin === undefined ? undefined : parsePublicOrigin(options.publicOrigin);
  const mcpOAuthRedirectUrl = new URL(MCP_OAUTH_CALLBACK_PATH, publicOrigin ?? 'http://127.0.0.1').href;
  const mcpOAuthClientMetadataUrl = mcpClientMetadata?.url;
  // One refresh token is spent once across replicas: a rotating authorization server revokes a reused one.
  const mcpOAuthRefreshLock: McpRefreshLock | undefined = scaleOut
    ? (key, work) => singleFlight({ lock: scaleOut.locks, key }, work)
    : undefined;
  const { approvals, elicitations, chats } = await startChatService(options, {
    turns,
    resolveModel,
    fetch,
    logger,
    mcpOAuthRedirectUrl,
    mcpOAuthRefreshLock,
    mcpOAuthClientMetadataUrl,
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
    ...omitUndefined({ mcpOAuthRefreshLock, mcpOAuthClientMetadataUrl }),
    availableBuiltIns: availableBuiltInIds({
      factories: options.builtInToolFactories,
      model: () => resolveModel(options.defaultModel),
    }),
  });
  const authenticate: Authenticate =
    auth === 'local'
      ? await localAuthentication(storage, options.localUser)
      : (context) => access.authenticate(context);

  const routes = new RouteRegistry();
  const { organizations, mcpOAuth } = registerServerRoutes(routes, options, {
    chats,
    turns,
    access,
    authenticate,
    publicOrigin,
    userData,
    library,
    connectedApps,
    approvals,
    elicitations,
    fetch,
    logger,
    mcpOAuthRefreshLock,
    mcpClientMetadata,
  });

  const app = new Hono();
  limitRequestBodies(app, {
    uploadPaths: [FILE_UPLOAD_PATH, ...ADMIN_UPLOAD_PATHS],
    maxBodyBytes: limits.maxBodyBytes,
    maxUploadBytes: limits.maxUploadBytes,
  });
  answerErrorsAsJson(app, logger);
  const openApiDocument = mountServerRoutes(app, routes, {
    turns,
    healthComponents: options.healthComponents ?? [],
  });
  describeMcpEndpoint(routes);
  // With replicas, one allowance per user across all of them (counted in the shared backend).
  const guard = createRequestGuard(authenticate, {
    limit: scaleOut?.rateLimit ?? new InProcessRequestRateLimit(),
    perMinute: limits.requestsPerMinute ?? 600,
  });
  routes.mount(app, guard, {
    checkResponses: options.checkResponses ?? process.env.NODE_TEST_CONTEXT !== undefined,
  });
  mountMcpEndpoint(app, { chats, guard, version: SERVER_API_VERSION });
  if (options.webRoot) mountWebApp(app, options.webRoot);
  let sweeper: AbandonedTurnSweeper | undefined;
  if (scaleOut && scaleOut.worker !== false) {
    await scaleOut.queue.work((job, delivery) => chats.runQueued(job, delivery));
    // Closed now and then periodically, by one worker replica at a time.
    sweeper = await startAbandonedTurnSweeper({
      turns,
      logger,
      graceMs: scaleOut.abandonedTurnSweep?.graceMs,
      intervalMs: scaleOut.abandonedTurnSweep?.intervalMs,
    });
  }
  const memoryAtRest = releaseMemoryAtRest({ busy: () => turns.running > 0 });

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
    elicitations,
    connectedApps,
    routes,
    logger,
    openApiDocument,
    async close() {
      sweeper?.stop();
      memoryAtRest.stop();
      // A worker stops taking jobs first; the turns it runs are then stopped and write their ends.
      const closingQueue = scaleOut?.queue.close();
      await turns.stopAll();
      await closingQueue;
      await approvals.close();
      await elicitations.close();
    },
  };
}

/** The chat service and the hubs its turns wait on (tool approvals and MCP elicitations), listening. */
async function startChatService(
  options: ServerOptions,
  context: {
    readonly turns: TurnRunner;
    readonly resolveModel: NonNullable<ServerOptions['resolveModel']>;
    readonly fetch: typeof globalThis.fetch;
    readonly logger: ServerLogger;
    readonly mcpOAuthRedirectUrl: string;
    readonly mcpOAuthRefreshLock: McpRefreshLock | undefined;
    readonly mcpOAuthClientMetadataUrl: string | undefined;
  },
): Promise<{ approvals: ApprovalHub; elicitations: ElicitationHub; chats: ChatService }> {
  const { turns, resolveModel, fetch, logger, mcpOAuthRedirectUrl, mcpOAuthRefreshLock } = context;
  const { mcpOAuthClientMetadataUrl } = context;
  const storage = options.storage;
  const scaleOut = options.scaleOut;
  const limits = options.limits ?? {};
  const approvals = new ApprovalHub(
    omitUndefined({
      timeoutMs: options.approvalTimeoutMs,
      relay: scaleOut?.approvals,
      asks: scaleOut?.approvalAsks,
    }),
  );
  await approvals.listen();
  const elicitations = new ElicitationHub(
    omitUndefined({ timeoutMs: options.elicitationTimeoutMs, relay: scaleOut?.elicitations }),
  );
  await elicitations.listen();
  const chats = new ChatService({
    approvals,
    elicitations,
    ...omitUndefined({ contextWindowTokens: options.contextWindowTokens }),
    ...omitUndefined({ documentIndex: options.documentIndex }),
    ...(options.titleChats ? { titleChats: true } : {}),
    storage,
    runner: turns,
    ...omitUndefined({ queue: scaleOut?.queue }),
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
    defaultPersona: defaultPersonaOf(storage, options.defaultPersonaId),
    concurrentTurnsPerUser: limits.concurrentTurnsPerUser ?? 4,
    ...omitUndefined({ maxCycles: options.maxCycles }),
    ...(options.recordToolContentInSpans ? { recordToolContent: true } : {}),
    mcpOAuthRedirectUrl,
    ...omitUndefined({
      mcpOAuthRefreshLock,
      mcpOAuthClientMetadataUrl,
      mcpToolCallTimeoutMs: options.mcpToolCallTimeoutMs,
    }),
  });
  return { approvals, elicitations, chats };
}

/** Every route of the API in one registry, in the order they are matched. */
function registerServerRoutes(
  routes: RouteRegistry,
  options: ServerOptions,
  services: {
    readonly chats: ChatService;
    readonly turns: TurnRunner;
    readonly access: AccessService;
    readonly authenticate: Authenticate;
    readonly publicOrigin: string | undefined;
    readonly userData: UserDataService;
    readonly library: LibraryAdmin;
    readonly connectedApps: ConnectedAppAdmin;
    readonly approvals: ApprovalHub;
    readonly elicitations: ElicitationHub;
    readonly fetch: typeof globalThis.fetch;
    readonly logger: ServerLogger;
    readonly mcpOAuthRefreshLock: McpRefreshLock | undefined;
    readonly mcpClientMetadata: McpClientMetadata | undefined;
  },
): { organizations: OrganizationService; mcpOAuth: McpOAuthService } {
  const { chats, turns, access, authenticate, publicOrigin, userData, library, connectedApps } = services;
  const { approvals, elicitations, fetch, logger, mcpOAuthRefreshLock, mcpClientMetadata } = services;
  const storage = options.storage;
  registerChatRoutes(routes, chats, turns, { heartbeatMs: options.heartbeatMs });
  registerAccessRoutes(routes, access, { publicOrigin, authenticate });
  const organizations = new OrganizationService(storage);
  registerOrganizationRoutes(routes, organizations);
  registerInvitationRoutes(routes, storage);
  registerUserDataRoutes(routes, userData);
  registerUiRoutes(routes, chats, turns);
  registerAdminRoutes(routes, library);
  registerDocumentTextRoute(routes, options.documentIndex);
  registerMcpServerAccessRoutes(routes, storage);
  registerMcpCredentialRoutes(routes, storage, { logger });
  const mcpOAuth = new McpOAuthService({
    storage,
    fetch,
    ...omitUndefined({ refreshLock: mcpOAuthRefreshLock, clientMetadataUrl: mcpClientMetadata?.url }),
  });
  registerMcpOAuthRoutes(routes, mcpOAuth, { publicOrigin });
  if (mcpClientMetadata !== undefined) registerMcpClientMetadataRoute(routes, mcpClientMetadata);
  registerConnectedAppRoutes(routes, connectedApps);
  registerApprovalRoutes(routes, approvals);
  registerElicitationRoutes(routes, {
    elicitations,
    requireChat: (principal, chatId) => chats.require(principal, chatId),
  });
  return { organizations, mcpOAuth };
}

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createToolAssemblyCache } from '@toolbus/assembly';
import { DEFAULT_LOCAL_MODEL } from '@toolbus/core';
import { createGuardedFetch, createNodeHttpFetch } from '@toolbus/core/node';
import type { GatewayConfig, GatewayHandler } from '@toolbus/gateway';
import {
  type ConfiguredInterpreter,
  configuredInterpreter,
  createInProcessSandbox,
  createJsonLogger,
  createServer,
  healthOnlyServer,
  listen,
  type ServerAuthMode,
  ServerError,
} from '@toolbus/server';
import { omitUndefined, ToolbusError } from '@toolbus/spec';
import type { Storage } from '@toolbus/storage';
import { webRoot } from '@toolbus/web';
import { loadCliConfig } from '../cli-config.ts';
import type { CliIo } from '../cli-io.ts';
import { parseSettingValue, resolveSetting } from '../config-schema.ts';
import { createConfigSettingsBackend } from '../config-settings-backend.ts';
import { EXIT_CODES } from '../exit-codes.ts';
import { storedKeyAuthenticator } from '../gateway-key-check.ts';
import { reservedSkillNames } from '../load-skills.ts';
import { openWorkspace } from '../open-workspace.ts';
import { parseCommandArgs } from '../parse-command-args.ts';
import { watchSandboxHealth } from '../sandbox-health.ts';
import { resolveScaleOutTiming } from '../scale-out-timing.ts';
import { openServeSkills, serveToolFactories } from '../serve-turn-tools.ts';
import { shutdownSignal } from '../shutdown-signal.ts';
import { UsageError } from '../usage-error.ts';
import type { CliCommand } from './cli-command.ts';
import { parseServeFlags, serveArgOptions, type serveRoles } from './serve-flags.ts';

export const serveUsage = `Usage: toolbus serve [--port N] [--host 127.0.0.1] [--auth local|api-keys] [--role both|api|worker]
                     [--public-origin https://host] [--mcp-client-metadata-url https://host/path]
                     [--turns-per-user N] [--requests-per-minute N]
                     [--turn-lock-ms N] [--stalled-check-ms N] [--slot-ttl-ms N]

Serves chats (streamed packets that survive disconnects), the admin API and /openapi.json over HTTP.
Loopback by default, where --auth local (the default there) acts as the CLI's own user; any other host needs
--auth api-keys.

Several replicas (docs/scale-out.md): with redis.url set (toolbus config set redis.url redis://host:6379, or
TOOLBUS_REDIS_URL), turns are queued in Redis and run by any worker replica, and any replica streams, resumes
and stops any turn. --role api serves the API without running turns; --role worker runs turns and serves only
GET /health; both (the default) does both. Without redis.url every turn runs in this process.

--public-origin URL: the origin browsers reach this server at (behind a TLS proxy: https://toolbus.example.com).
MCP OAuth redirect URIs are built on it alone, and when it is https the session cookie is Secure. Without it,
OAuth flows are refused for requests by any non-loopback name (the Host header is the client's to set).
--mcp-client-metadata-url URL: toolbus's OAuth Client ID Metadata Document, an https URL on --public-origin
  (e.g. https://toolbus.example.com/oauth/client-metadata.json). toolbus serves the document there and uses the
  URL as its client id at MCP authorization servers that support it; others get a dynamic registration.
--turns-per-user N: turns one user may run at once (default 4; shared by replicas on Redis).
--requests-per-minute N: requests per user per minute (default 600; with redis.url one allowance per user for
  the whole deployment, counted in Redis, not one per replica).

Skills accepted in the admin API or web UI, or added, replaced or removed with \`toolbus skills\` (another process,
same data folder), are used from the next turn on, without a restart: run_python's description lists them and its
sandbox mounts them read-only at /workspace/managed/skills. A turn already running keeps the skills it started with.

Takeover of a dead replica's turns (with redis.url; also TOOLBUS_TURN_LOCK_MS, TOOLBUS_STALLED_CHECK_MS,
TOOLBUS_SLOT_TTL_MS, or the config keys redis.turnLockMs, redis.stalledCheckMs, redis.slotTtlMs):
--turn-lock-ms N: a worker's hold on a turn, renewed while it runs (default 30000). A dead worker's turns are
  closed by another between N and N + --stalled-check-ms after its death (30-45 s with the defaults).
--stalled-check-ms N: how often workers look for turns whose worker died (default 15000).
--slot-ttl-ms N: how long a dead replica's per-user turn slots still count (default 30000).
Shorter is faster takeover but more Redis traffic, and a worker whose event loop stalls longer than
--turn-lock-ms loses its turns (docs/scale-out.md).

Ctrl-C (SIGINT) or SIGTERM stops it: running turns end with {"type":"stop","reason":"interrupted"} (what was
answered so far is kept), open streams get that end and close, and it exits 0. A second signal exits at once, 130
after SIGINT and 143 after SIGTERM. Under npm, \`npm run serve\` hands the signal on to it the same way.
`;

/** `toolbus serve`: the HTTP server over the CLI's stores, until SIGINT or SIGTERM. */
export const serveCommand: CliCommand = {
  name: 'serve',
  synopsis: 'serve [--port N]         the HTTP server: chats, admin API, /openapi.json',
  usage: serveUsage,
  run: (argv, io) => runServeCommand(argv, io),
};

export async function runServeCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs({
    argv,
    usage: serveUsage,
    positionals: false,
    options: serveArgOptions,
  });
  if (values.help) {
    io.stdout.write(serveUsage);
    return 0;
  }
  const { port, publicOrigin, mcpClientMetadataUrl, auth, role, limits } = parseServeFlags({
    values,
    usage: serveUsage,
  });
  const config = loadCliConfig({ env: io.env, modelFlag: values.model });
  const redisUrl = io.env.TOOLBUS_REDIS_URL || config.file.redis?.url;
  const badRedisUrl = redisUrl === undefined ? undefined : redisUrlProblem(redisUrl);
  if (badRedisUrl !== undefined) {
    io.stderr.write(`toolbus serve: ${badRedisUrl}\n`);
    return 2;
  }
  if (redisUrl === undefined && role !== 'both') {
    throw new UsageError({
      message: '--role api and --role worker need redis.url (docs/scale-out.md).',
      usage: serveUsage,
    });
  }
  const logger = createJsonLogger((line) => io.stderr.write(line));
  const scaleOut =
    redisUrl === undefined ? undefined : await startScaleOut({ redisUrl, role, values, io, config, logger });
  const workspace = await openWorkspace(config);
  const fetch = createGuardedFetch({
    level: 'strict',
    ...omitUndefined({ allow: config.file.allowHosts }),
  });
  const defaultModel = config.model.value ?? `ollama:${DEFAULT_LOCAL_MODEL}`;
  // The web UI, when it was built (npm run setup builds it): served at /.
  const hasWebApp = existsSync(join(webRoot, 'index.html'));
  // One interpreter (or pool) for every chat of this process: a pool's health state is shared, not per chat.
  const sandbox = configuredInterpreter(config.file);
  const {
    stores: skillStores,
    skills,
    close: closeSkills,
  } = await openServeSkills(config, io, sandbox, logger);
  // Its state on /health, and a log line when every service stops answering (and when one is back).
  const sandboxHealth =
    sandbox &&
    watchSandboxHealth({ interpreter: sandbox.interpreter, serviceCount: sandbox.serviceCount, logger });
  // Without a configured one, one sandbox service of this process, started now with the skills stored now (its
  // isolation probe spawns several processes) rather than by a turn; a probe that failed is remembered, and
  // run_python is then not offered. After the skills change, a turn's first run starts one for the new set.
  const inProcessSandbox =
    skills === undefined ? undefined : createInProcessSandbox({ skills: skills.current });
  inProcessSandbox?.warm();
  // Parsed OpenAPI documents and open MCP connections kept between turns (per server, user and configuration).
  const assemblyCache = createToolAssemblyCache();
  // Deep Research needs the models' input window, as `toolbus research` reads it.
  const contextWindow = Number(io.env.TOOLBUS_CONTEXT_WINDOW);
  const server = await createServer({
    ...(Number.isInteger(contextWindow) && contextWindow > 0 ? { contextWindowTokens: contextWindow } : {}),
    ...(hasWebApp ? { webRoot } : {}),
    storage: workspace.storage,
    auth,
    localUser: workspace.user,
    defaultPersonaId: workspace.persona.id,
    defaultModel,
    // The server resolves the model names (one model per name, read over createNodeHttpFetch) with this env.
    modelEnvironment: io.env,
    fetch: fetch as typeof globalThis.fetch,
    logger,
    limits,
    ...omitUndefined({ publicOrigin, mcpClientMetadataUrl }),
    ...(sandboxHealth ? { healthComponents: [sandboxHealth] } : {}),
    ...omitUndefined({ scaleOut, mcpToolCallTimeoutMs: config.file.mcp?.toolCallTimeoutMs }),
    skills: {
      ...skillStores,
      // The same rules as `toolbus skills add`: the administrator's reserved names hold for uploads too.
      validation: { reservedNames: reservedSkillNames(config, io.env) },
    },
    documentIndex: workspace.index,
    // The admin settings are the config file, written by the same function as `toolbus config set`.
    settings: createConfigSettingsBackend(io.env),
    turnSettings: {
      ...omitUndefined({
        toolLimits: config.file.toolLimits,
        toolCallDialects: config.file.toolCallDialects,
      }),
    },
    assemblyCache,
    // A new chat is titled from its first exchange (one small model request after the first answer), so the web
    // app's list and `toolbus history` show what each chat is about rather than a column of "New chat".
    titleChats: true,
    builtInToolFactories: serveToolFactories({
      config,
      io,
      workspace,
      fetch,
      skills,
      sandbox,
      inProcessSandbox,
    }),
  });
  try {
    // The recovery gateway's routes, when the config file has a gateway section (docs/gateway.md).
    const gateway =
      config.file.gateway && role !== 'worker'
        ? await servedGateway(config.file.gateway, auth, workspace.storage, io, logger)
        : undefined;
    const http = await listen(role === 'worker' ? healthOnlyServer(server) : server, {
      port,
      ...omitUndefined({ host: values.host || undefined, nodeRoutes: gateway }),
    }).catch((error: unknown) => {
      throw listenError(error, { port, host: values.host ?? '127.0.0.1' });
    });
    // Listen for the stop signal before the first line is printed: a supervisor may send it the moment it reads the
    // line, and a signal that comes before the handler kills the process (143) instead of stopping it cleanly.
    const stop = shutdownSignal(io, 'toolbus serve');
    printServing(io, {
      url: http.url,
      auth,
      defaultModel,
      role,
      scaleOut: scaleOut !== undefined,
      sandbox,
      gateway: gateway !== undefined,
      hasWebApp,
    });
    if (auth === 'api-keys') {
      // A fresh deployment needs one admin: the CLI's user becomes it, and its key is printed this once.
      const bootstrap = await server.access.bootstrapAdmin(workspace.user.email);
      if (bootstrap) io.stdout.write(`  admin API key (shown once, store it now): ${bootstrap.key}\n`);
    }
    const signal = await stop.received;
    io.stdout.write(`toolbus serve: ${signal} received, stopping running turns and closing streams\n`);
    await http.close();
    return EXIT_CODES.ok;
  } finally {
    sandboxHealth?.close();
    sandbox?.close();
    await server.close();
    await assemblyCache.close();
    await inProcessSandbox?.close();
    await scaleOut?.close();
    await closeSkills();
    await workspace.close();
    await fetch.close?.();
  }
}

/** The Redis scale-out backend of `redisUrl`. */
async function startScaleOut(options: {
  readonly redisUrl: string;
  readonly role: (typeof serveRoles)[number];
  readonly values: Parameters<typeof resolveScaleOutTiming>[0]['flags'];
  readonly io: CliIo;
  readonly config: ReturnType<typeof loadCliConfig>;
  readonly logger: ReturnType<typeof createJsonLogger>;
}) {
  const { logger } = options;
  // Loaded only when configured: the Redis client and queue libraries would add about 25 MB to every server.
  return (await import('@toolbus/redis')).createRedisScaleOut({
    url: options.redisUrl,
    worker: options.role !== 'api',
    onError: (event, error) =>
      logger.warn(`scale_out.${event}`, { error: error instanceof Error ? error.name : 'unknown' }),
    ...resolveScaleOutTiming({ flags: options.values, env: options.io.env, file: options.config.file.redis }),
  });
}

/** Why `redis.url` (from the variable or the config file) is not a usable setting, or undefined when it is. */
function redisUrlProblem(redisUrl: string): string | undefined {
  try {
    parseSettingValue(resolveSetting('redis.url'), redisUrl);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The lines serve prints once it listens: where, as whom, and which of its optional parts are on. */
function printServing(
  io: CliIo,
  serving: {
    readonly url: string;
    readonly auth: ServerAuthMode;
    readonly defaultModel: string;
    readonly role: string;
    readonly scaleOut: boolean;
    readonly sandbox: ConfiguredInterpreter | undefined;
    readonly gateway: boolean;
    readonly hasWebApp: boolean;
  },
): void {
  const { url, sandbox } = serving;
  const mode = serving.scaleOut ? `, replica role: ${serving.role} on Redis` : '';
  io.stdout.write(
    `toolbus serving on ${url} (auth: ${serving.auth}, model: ${serving.defaultModel}${mode})\n`,
  );
  io.stdout.write(`  OpenAPI document: ${url}/openapi.json\n`);
  if (sandbox !== undefined && sandbox.serviceCount > 1) {
    io.stdout.write(`  run_python: ${sandbox.serviceCount} sandbox services, load-balanced\n`);
  }
  if (serving.gateway) {
    io.stdout.write(
      `  recovery gateway: ${url}/v1 (/v1/chat/completions, /v1/messages, /v1/models, /v1/completions, /v1/embeddings)\n`,
    );
  }
  io.stdout.write(serving.hasWebApp ? `  web UI: ${url}/\n` : '  web UI: not built (run npm run setup)\n');
}

/**
 * The gateway's routes inside serve: the same upstreams, and the server's own keys when it has them. The gateway
 * package loads here, only when the config file has a gateway section: a server without one never holds it.
 */
async function servedGateway(
  config: GatewayConfig,
  auth: ServerAuthMode,
  storage: Storage,
  io: CliIo,
  logger: ReturnType<typeof createJsonLogger>,
): Promise<{ paths: readonly string[]; prefixes: readonly string[]; handler: GatewayHandler }> {
  const { createGatewayHandler, GATEWAY_PATH_PREFIXES, GATEWAY_PATHS } = await import('@toolbus/gateway');
  const handler = createGatewayHandler({
    upstreams: config.upstreams,
    env: io.env,
    ...(auth === 'api-keys' ? { authenticate: storedKeyAuthenticator(storage) } : {}),
    ...omitUndefined({
      requestsPerMinute: config.requestsPerMinute,
      maxRequestBytes: config.maxRequestBytes,
      models: config.models,
    }),
    fetch: createNodeHttpFetch() as typeof fetch,
    log: ({ event, ...fields }) => logger.info(`gateway.${event}`, fields),
  });
  return { paths: GATEWAY_PATHS, prefixes: GATEWAY_PATH_PREFIXES, handler };
}

/** Why the server could not listen, naming the flag to change: --host (needs keys, unknown), --port (taken). */
function listenError(error: unknown, at: { port: number; host: string }): unknown {
  if (ServerError.isInstance(error) && error.field === 'host') {
    return new UsageError({
      message: `--host ${at.host} is not a loopback address: serving on it needs --auth api-keys.`,
      usage: serveUsage,
    });
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') {
    return new ToolbusError({
      code: 'port_in_use',
      message: `port ${at.port} on ${at.host} is in use: pick another with --port (0 picks a free one).`,
    });
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new ToolbusError({
      code: 'host_unavailable',
      message: `cannot listen on --host ${at.host}: it is not an address of this machine.`,
    });
  }
  if (code === 'EACCES') {
    return new ToolbusError({
      code: 'port_forbidden',
      message: `port ${at.port} needs privileges: pick one above 1023 with --port.`,
    });
  }
  return error;
}

/**
 * Queue timing from the environment, for tests that kill a replica and cannot wait the production 30 s before its
 * turns are taken over (`TOOLBUS_TURN_LOCK_MS`, `TOOLBUS_STALLED_CHECK_MS`, `TOOLBUS_SLOT_TTL_MS`).
 */

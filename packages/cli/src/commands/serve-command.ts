import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_LOCAL_MODEL, resolveLanguageModel } from '@toolbus/core';
import { createGuardedFetch } from '@toolbus/core/node';
import { createJsonLogger, createServer, listen, type ServerAuthMode } from '@toolbus/server';
import { openSkillStores } from '@toolbus/skills';
import { omitUndefined } from '@toolbus/spec';
import { webRoot } from '@toolbus/web';
import { builtInToolFactories } from '../built-in-tool-factories.ts';
import { loadCliConfig } from '../cli-config.ts';
import type { CliIo } from '../cli-io.ts';
import { createConfigSettingsBackend } from '../config-settings-backend.ts';
import { configuredInterpreter } from '../configured-interpreter.ts';
import { loadChatSkills, reservedSkillNames, skillsDataDirectory } from '../load-skills.ts';
import { openWorkspace } from '../open-workspace.ts';
import type { CliCommand } from './cli-command.ts';

export const serveUsage = `Usage: toolbus serve [--port N] [--host 127.0.0.1] [--auth local|api-keys]

Serves chats (streamed packets that survive disconnects), the admin API and /openapi.json over HTTP.
Loopback by default, where --auth local (the default there) acts as the CLI's own user; any other host needs
--auth api-keys.
`;

/** `toolbus serve`: the HTTP server over the CLI's stores, until SIGINT or SIGTERM. */
/** `toolbus serve`. */
export const serveCommand: CliCommand = {
  name: 'serve',
  synopsis: 'serve [--port N]         the HTTP server: chats, admin API, /openapi.json',
  usage: serveUsage,
  run: (argv, io) => runServeCommand(argv, io),
};

export async function runServeCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      auth: { type: 'string' },
      model: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout.write(serveUsage);
    return 0;
  }
  const port = values.port === undefined ? 8787 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    io.stderr.write('toolbus serve: --port takes a number from 0 to 65535.\n');
    return 2;
  }
  const auth = (values.auth ?? 'local') as ServerAuthMode;
  if (auth !== 'local' && auth !== 'api-keys') {
    io.stderr.write('toolbus serve: --auth is "local" or "api-keys".\n');
    return 2;
  }
  const config = loadCliConfig({ env: io.env, modelFlag: values.model });
  const workspace = await openWorkspace(config);
  const fetch = createGuardedFetch({
    level: 'strict',
    ...omitUndefined({ allow: config.file.allowHosts }),
  });
  const skills = await loadChatSkills(config, io.env);
  const defaultModel = config.model.value ?? `ollama:${DEFAULT_LOCAL_MODEL}`;
  // The web UI, when it was built (npm run setup builds it): served at /.
  const hasWebApp = existsSync(join(webRoot, 'index.html'));
  // One interpreter (or pool) for every chat of this process: a pool's health state is shared, not per chat.
  const sandbox = configuredInterpreter(config.file);
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
    resolveModel: (model) => resolveLanguageModel(model, { env: io.env }),
    fetch: fetch as typeof globalThis.fetch,
    logger: createJsonLogger((line) => io.stderr.write(line)),
    skills: {
      ...(await openSkillStores(skillsDataDirectory(config, io.env))),
      // The same rules as `toolbus skills add`: the administrator's reserved names hold for uploads too.
      validation: { reservedNames: reservedSkillNames(config, io.env) },
    },
    documentIndex: workspace.index,
    // The admin settings are the config file, written by the same function as `toolbus config set`.
    settings: createConfigSettingsBackend(io.env),
    builtInToolFactories: (context) =>
      builtInToolFactories({
        config,
        index: workspace.index,
        storage: workspace.storage,
        fetch,
        userId: context.user.id,
        organizationId: context.organizationId,
        env: io.env,
        model: context.model,
        onClose: context.onClose,
        skills,
        ...omitUndefined({ interpreter: sandbox?.interpreter }),
        // run_python gets network through the egress proxy when the user has connected apps; its ASK actions
        // become approval cards in the chat.
        ...omitUndefined({
          egressApprovals: context.approvals && {
            broker: context.approvals.broker,
            timeoutMs: context.approvals.timeoutMs,
            sessionId: context.approvals.sessionId,
          },
        }),
      }),
  });
  try {
    const http = await listen(server, { port, ...(values.host ? { host: values.host } : {}) });
    io.stdout.write(`toolbus serving on ${http.url} (auth: ${auth}, model: ${defaultModel})\n`);
    io.stdout.write(`  OpenAPI document: ${http.url}/openapi.json\n`);
    if (sandbox !== undefined && sandbox.serviceCount > 1) {
      io.stdout.write(`  run_python: ${sandbox.serviceCount} sandbox services, load-balanced\n`);
    }
    io.stdout.write(hasWebApp ? `  web UI: ${http.url}/\n` : '  web UI: not built (run npm run setup)\n');
    if (auth === 'api-keys') {
      // A fresh deployment needs one admin: the CLI's user becomes it, and its key is printed this once.
      const bootstrap = await server.access.bootstrapAdmin(workspace.user.email);
      if (bootstrap) io.stdout.write(`  admin API key (shown once, store it now): ${bootstrap.key}\n`);
    }
    await new Promise<void>((resolve) => {
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
    });
    await http.close();
    return 0;
  } finally {
    sandbox?.close();
    await server.close();
    await skills.close();
    await workspace.close();
    await fetch.close?.();
  }
}

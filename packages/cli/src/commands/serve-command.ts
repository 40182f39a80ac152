import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_LOCAL_MODEL, resolveLanguageModel } from '@toolbus/core';
import { createGuardedFetch } from '@toolbus/core/node';
import { createJsonLogger, createServer, listen, type ServerAuthMode } from '@toolbus/server';
import { openSkillStores } from '@toolbus/skills';
import { webRoot } from '@toolbus/web';
import { builtInToolFactories } from '../built-in-tool-factories.ts';
import { loadCliConfig } from '../cli-config.ts';
import type { CliIo } from '../cli-io.ts';
import { loadChatSkills, skillsDataDirectory } from '../load-skills.ts';
import { openWorkspace } from '../open-workspace.ts';
import { parseCommandArgs } from '../parse-command-args.ts';
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
  const { values } = parseCommandArgs({
    argv,
    usage: serveUsage,
    positionals: false,
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
    ...(config.file.allowHosts ? { allow: config.file.allowHosts } : {}),
  });
  const skills = await loadChatSkills(config, io.env);
  const defaultModel = config.model.value ?? `ollama:${DEFAULT_LOCAL_MODEL}`;
  // The web UI, when it was built (npm run setup builds it): served at /.
  const hasWebApp = existsSync(join(webRoot, 'index.html'));
  const server = await createServer({
    ...(hasWebApp ? { webRoot } : {}),
    storage: workspace.storage,
    auth,
    localUser: workspace.user,
    defaultPersonaId: workspace.persona.id,
    defaultModel,
    resolveModel: (model) => resolveLanguageModel(model, { env: io.env }),
    fetch: fetch as typeof globalThis.fetch,
    logger: createJsonLogger((line) => io.stderr.write(line)),
    skills: await openSkillStores(skillsDataDirectory(config, io.env)),
    documentIndex: workspace.index,
    builtInToolFactories: (context) =>
      builtInToolFactories({
        config,
        index: workspace.index,
        storage: workspace.storage,
        fetch,
        userId: context.user.id,
        env: io.env,
        model: context.model,
        onClose: context.onClose,
        skills,
      }),
  });
  try {
    const http = await listen(server, { port, ...(values.host ? { host: values.host } : {}) });
    io.stdout.write(`toolbus serving on ${http.url} (auth: ${auth}, model: ${defaultModel})\n`);
    io.stdout.write(`  OpenAPI document: ${http.url}/openapi.json\n`);
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
    await server.close();
    await skills.close();
    await workspace.close();
    await fetch.close?.();
  }
}

import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { resolveModelEndpoint } from '@toolbus/core';
import { type CliConfig, loadCliConfig, setConfigValue } from '../cli-config.ts';
import type { CliIo } from '../cli-io.ts';
import { CONFIG_SCHEMA } from '../config-schema.ts';
import { EXIT_CODES } from '../exit-codes.ts';
import { UsageError } from '../usage-error.ts';
import type { CliCommand } from './cli-command.ts';
import type { CliSubcommand } from './cli-subcommand.ts';

const usage = `Usage: toolbus config [show | set <key> <value> | unset <key> | path]

Settings live in $TOOLBUS_HOME/config.json (default ~/.toolbus/config.json); keys never do — set them in the
environment (OPENAI_API_KEY, ANTHROPIC_API_KEY, TOOLBUS_API_KEY, a web search key) and store only a variable NAME.
\`set\` checks the value against the setting's type.

Settings:
${CONFIG_SCHEMA.map((setting) => `  ${setting.key.padEnd(32)} ${setting.description}${setting.kind.type === 'enum' ? ` (${setting.kind.values.join('|')})` : ''}`).join('\n')}
`;

const secretVariables = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'TOOLBUS_API_KEY', 'TOOLBUS_SECRET_KEY'];

/** The subcommands of `toolbus config`, each with its own help. */
const configSubcommands: readonly CliSubcommand[] = [
  {
    name: 'show',
    forms: [''],
    summary:
      'Shows where settings and keys live, the settings in force, and what will really happen (which model, whether it is usable, where run_python runs). The default. Exits 1 when the config file has problems.',
    examples: ['toolbus config show'],
  },
  {
    name: 'set',
    forms: ['<key> <value>'],
    summary: `Sets a setting, checked against its type first (keys: ${CONFIG_SCHEMA.map((setting) => setting.key).join(', ')}).`,
    examples: ['toolbus config set model openai:gpt-4.1', 'toolbus config set memory on'],
  },
  {
    name: 'unset',
    forms: ['<key>'],
    summary: 'Removes a setting (its default applies again).',
    examples: ['toolbus config unset model'],
  },
  {
    name: 'path',
    forms: [''],
    summary: 'Prints the path of the config file.',
    examples: ['toolbus config path'],
  },
];

/** `toolbus config`: where settings and keys live, what will really happen, and validated `set`/`unset`. */
export const configCommand: CliCommand = {
  name: 'config',
  subcommands: configSubcommands,
  synopsis: 'config [show|set|unset]  where settings and keys live, what is usable',
  usage,
  async run(argv: readonly string[], io: CliIo): Promise<number> {
    const [action = 'show', key, value, ...extra] = argv;
    const config = loadCliConfig({
      env: io.env,
      tolerant: action === 'show' || action === 'path',
      // set and unset are how a wrong key is fixed: they must work on a file that has one.
      keepProblems: action === 'set' || action === 'unset',
    });
    if (action === 'path') {
      io.stdout.write(`${config.configFile}\n`);
      return EXIT_CODES.ok;
    }
    if (action === 'set' || action === 'unset') {
      if (!key || (action === 'set' && value === undefined) || extra.length > 0) {
        throw new UsageError({
          message: `${action} takes ${action === 'set' ? 'a key and a value' : 'a key'}.`,
          usage,
        });
      }
      await setConfigValue(config, key, action === 'set' ? value : undefined);
      io.stdout.write(`${action === 'set' ? 'Set' : 'Removed'} ${key} in ${config.configFile}\n`);
      return EXIT_CODES.ok;
    }
    if (action !== 'show') throw new UsageError({ message: `unknown action "${action}".`, usage });
    io.stdout.write(`${describeConfig(config, io.env).join('\n')}\n`);
    return config.problems.length > 0 ? EXIT_CODES.failure : EXIT_CODES.ok;
  },
};

function describeConfig(config: CliConfig, env: CliIo['env']): string[] {
  const webSearch = config.file.webSearch;
  const webKeyEnv = webSearch?.apiKeyEnv;
  const lines = [`toolbus home:   ${config.home}   (TOOLBUS_HOME)`, `config file:    ${config.configFile}`];
  if (config.problems.length > 0) {
    lines.push('  PROBLEMS in the config file (fix them, or `toolbus config set` / `unset` the keys):');
    for (const problem of config.problems) lines.push(`    - ${problem}`);
    lines.push(`  expected keys: ${CONFIG_SCHEMA.map((setting) => setting.key).join(', ')}`);
  }
  lines.push(
    `database:       ${describeDatabase(config)}   (secrets encrypted with ${env.TOOLBUS_SECRET_KEY ? 'TOOLBUS_SECRET_KEY' : `${config.home}/secret.key`})`,
    `search index:   ${config.indexFile}`,
    `model:          ${describeModel(config, env)}`,
    `memory:         ${config.file.memory === 'on' ? 'on (add_memory offered; memories reach later chats)' : 'off (toolbus config set memory on)'}`,
    `sandbox:        ${describeSandbox(config, env)}`,
    `web search:     ${
      webSearch
        ? `${webSearch.provider}${webKeyEnv ? ` (key in ${webKeyEnv}: ${env[webKeyEnv] ? 'set' : 'NOT set — web_search is not usable'})` : ''}`
        : 'not configured (web_search is not offered)'
    }`,
    'keys in the environment (names only):',
    ...secretVariables.map((name) => `  ${name}: ${env[name] ? 'set' : 'not set'}`),
  );
  return lines;
}

/** Where storage lives: the SQLite file, or PostgreSQL's host, port and database (never the URL's password). */
function describeDatabase(config: CliConfig): string {
  const url = config.storageUrl.value;
  if (url === undefined) return config.databaseFile;
  try {
    const parsed = new URL(url);
    return `PostgreSQL at ${parsed.hostname || 'localhost'}:${parsed.port || '5432'}${parsed.pathname} (from ${config.storageUrl.source})`;
  } catch {
    return `PostgreSQL: the URL from ${config.storageUrl.source} is not a valid URL`;
  }
}

/** The model in force, and whether it is usable: a hosted provider without its key is not. */
function describeModel(config: CliConfig, env: CliIo['env']): string {
  const source = `(from ${config.model.source})`;
  try {
    const endpoint = resolveModelEndpoint(config.model.value, env);
    const name = `${endpoint.provider}:${endpoint.model}`;
    const missingKey =
      endpoint.apiKeyRequired &&
      endpoint.apiKeyVariable !== undefined &&
      !env[endpoint.apiKeyVariable]?.trim();
    if (missingKey) return `${name}   ${source} — NOT usable: set ${endpoint.apiKeyVariable}`;
    return `${name} at ${endpoint.baseUrl}   ${source}`;
  } catch (error) {
    return `${config.model.value ?? '(none)'}   ${source} — NOT usable: ${(error as Error).message}`;
  }
}

/** What run_python will really do: the configured service, or a sandbox inside the chat's own process. */
function describeSandbox(config: CliConfig, env: CliIo['env']): string {
  const pooled = config.file.sandboxUrls;
  if (Array.isArray(pooled) && pooled.length > 0) {
    return `${pooled.join(', ')} (run_python spreads runs over these ${pooled.length}, health-checked)`;
  }
  if (config.file.sandboxUrl) return `${config.file.sandboxUrl} (run_python runs there)`;
  const bubblewrap = (env.PATH ?? '')
    .split(delimiter)
    .some((folder) => folder !== '' && existsSync(join(folder, 'bwrap')));
  return bubblewrap
    ? 'no sandboxUrl: chat starts a sandbox in its own process for run_python (bubblewrap isolation)'
    : 'no sandboxUrl: chat starts a sandbox in its own process, but bubblewrap (bwrap) is not installed, so run_python is refused — install bubblewrap or set sandboxUrl';
}

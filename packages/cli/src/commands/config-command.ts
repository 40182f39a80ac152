import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { resolveModelEndpoint } from '@toolbus/core';
import { describePostgresUrl } from '@toolbus/storage-postgres/postgres-url';
import { type CliConfig, loadCliConfig, setConfigValue, skillsDataDirectory } from '../cli-config.ts';
import type { CliIo } from '../cli-io.ts';
import { CONFIG_SCHEMA } from '../config-schema.ts';
import { EXIT_CODES } from '../exit-codes.ts';
import { actionCommand, defineAction } from './action-command.ts';

const usage = `Usage: toolbus config [show | set <key> <value> | unset <key> | path]

Settings live in $TOOLBUS_HOME/config.json (default ~/.toolbus/config.json); keys never do — set them in the
environment (OPENAI_API_KEY, ANTHROPIC_API_KEY, TOOLBUS_API_KEY, a web search key) and store only a variable NAME.
\`set\` checks the value against the setting's type.

Settings:
${CONFIG_SCHEMA.map((setting) => `  ${setting.key.padEnd(32)} ${setting.description}${setting.kind.type === 'enum' ? ` (${setting.kind.values.join('|')})` : ''}`).join('\n')}
`;

const secretVariables = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'TOOLBUS_API_KEY', 'TOOLBUS_SECRET_KEY'];

/** `toolbus config show`: where settings and keys live, and what will really happen. */
const showConfig = defineAction({
  name: 'show',
  forms: [''],
  summary:
    'Shows where settings and keys live, the settings in force, and what will really happen (which model, whether it is usable, where run_python runs). The default. Exits 1 when the config file has problems.',
  examples: ['toolbus config show'],
  async run({ io }) {
    const config = loadCliConfig({ env: io.env, tolerant: true });
    io.stdout.write(`${describeConfig(config, io.env).join('\n')}\n`);
    return config.problems.length > 0 ? EXIT_CODES.failure : EXIT_CODES.ok;
  },
});

/** `set` and `unset` are how a wrong key is fixed: they must work on a file that has one (`keepProblems`). */
async function writeSetting(io: CliIo, key: string, value: string | undefined): Promise<number> {
  const config = loadCliConfig({ env: io.env, keepProblems: true });
  await setConfigValue(config, key, value);
  io.stdout.write(`${value === undefined ? 'Removed' : 'Set'} ${key} in ${config.configFile}\n`);
  return EXIT_CODES.ok;
}

const setSetting = defineAction({
  name: 'set',
  forms: ['<key> <value>'],
  summary: `Sets a setting, checked against its type first (keys: ${CONFIG_SCHEMA.map((setting) => setting.key).join(', ')}).`,
  operands: { first: 'a key and a value', least: 2, most: 2 },
  examples: ['toolbus config set model openai:gpt-4.1', 'toolbus config set memory on'],
  run: ({ operands: [key, value], io }) => writeSetting(io, key as string, value as string),
});

const unsetSetting = defineAction({
  name: 'unset',
  forms: ['<key>'],
  summary: 'Removes a setting (its default applies again).',
  operands: { first: 'a key' },
  examples: ['toolbus config unset model'],
  run: ({ operands: [key], io }) => writeSetting(io, key as string, undefined),
});

const configPath = defineAction({
  name: 'path',
  forms: [''],
  summary: 'Prints the path of the config file.',
  examples: ['toolbus config path'],
  async run({ io }) {
    io.stdout.write(`${loadCliConfig({ env: io.env, tolerant: true }).configFile}\n`);
    return EXIT_CODES.ok;
  },
});

/** `toolbus config`: where settings and keys live, what will really happen, and validated `set`/`unset`. */
export const configCommand = actionCommand({
  name: 'config',
  synopsis: 'config [show|set|unset]  where settings and keys live, what is usable',
  usage,
  defaultAction: 'show',
  actions: [showConfig, setSetting, unsetSetting, configPath],
});

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
    // With a storage URL, the search index and the skills are in that database (open-configured-storage.ts).
    `search index:   ${config.storageUrl.value === undefined ? config.indexFile : 'in the PostgreSQL database above'}`,
    `skills:         ${config.storageUrl.value === undefined ? skillsDataDirectory(config, env) : 'in the PostgreSQL database above'}`,
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
  const source = `(from ${config.storageUrl.source})`;
  try {
    const target = describePostgresUrl(url);
    return `PostgreSQL at ${target.host}:${target.port}/${target.database} ${source}`;
  } catch (error) {
    // The owner's message never repeats the URL (it may hold a password).
    return `PostgreSQL ${source}: ${(error as Error).message}`;
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

import { CONFIG_KEYS, loadCliConfig, setConfigValue } from '../cli-config.ts';
import type { CliIo } from '../cli-io.ts';

export const configUsage = `Usage: toolbus config [show | set <key> <value> | unset <key> | path]

Settings live in $TOOLBUS_HOME/config.json (default ~/.toolbus/config.json); keys never do — set them in the
environment (OPENAI_API_KEY, ANTHROPIC_API_KEY, TOOLBUS_API_KEY, a web search key) and store only a variable NAME.
Keys: ${CONFIG_KEYS.join(', ')}
`;

const secretVariables = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'TOOLBUS_API_KEY', 'TOOLBUS_SECRET_KEY'];

/** `toolbus config`: where settings and keys live, what is in force, and `set`/`unset` of settings. */
export async function runConfigCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const [action = 'show', key, value] = argv;
  const config = loadCliConfig({ env: io.env });
  if (action === 'help' || action === '--help' || action === '-h') {
    io.stdout.write(configUsage);
    return 0;
  }
  if (action === 'path') {
    io.stdout.write(`${config.configFile}\n`);
    return 0;
  }
  if (action === 'set' || action === 'unset') {
    if (!key || (action === 'set' && value === undefined)) {
      io.stderr.write(`toolbus config ${action}: missing ${key ? 'value' : 'key'}.\n\n${configUsage}`);
      return 2;
    }
    await setConfigValue(config, key, action === 'set' ? value : undefined);
    io.stdout.write(`${action === 'set' ? 'Set' : 'Removed'} ${key} in ${config.configFile}\n`);
    return 0;
  }
  if (action !== 'show') {
    io.stderr.write(`toolbus config: unknown action "${action}".\n\n${configUsage}`);
    return 2;
  }
  const webKeyEnv = config.file.webSearch?.apiKeyEnv;
  const lines = [
    `toolbus home:   ${config.home}   (TOOLBUS_HOME)`,
    `config file:    ${config.configFile}`,
    `database:       ${config.databaseFile}   (secrets encrypted with ${io.env.TOOLBUS_SECRET_KEY ? 'TOOLBUS_SECRET_KEY' : `${config.home}/secret.key`})`,
    `search index:   ${config.indexFile}`,
    `model:          ${config.model.value ?? 'local Ollama (http://localhost:11434, qwen2.5:7b) unless an API key is set'}   (from ${config.model.source})`,
    `memory:         ${config.file.memory === 'on' ? 'on (add_memory offered; memories reach later chats)' : 'off (toolbus config set memory on)'}`,
    `sandbox:        ${config.file.sandboxUrl ?? 'not configured (python is off; run `toolbus sandbox serve` and set sandboxUrl)'}`,
    `web search:     ${config.file.webSearch ? `${config.file.webSearch.provider}${webKeyEnv ? ` (key in ${webKeyEnv}: ${io.env[webKeyEnv] ? 'set' : 'NOT set'})` : ''}` : 'not configured'}`,
    'keys in the environment (names only):',
    ...secretVariables.map((name) => `  ${name}: ${io.env[name] ? 'set' : 'not set'}`),
  ];
  io.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

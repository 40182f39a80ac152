import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ToolbusError } from '@toolbus/spec';

/** The settings a config file may hold. Keys never live here: only the NAMES of the variables that hold them. */
export interface ToolbusConfigFile {
  /** A model string (`ollama:qwen2.5:7b`, `openai:gpt-4.1`, `openai-compatible:<url>#<model>`). */
  model?: string;
  /** The code sandbox service (`toolbus sandbox serve`); python is offered when it answers. */
  sandboxUrl?: string;
  webSearch?: { provider: string; apiKeyEnv?: string; baseUrl?: string; searchEngineId?: string };
  imageGeneration?: { baseUrl?: string; model?: string; apiKeyEnv?: string };
  /** `on`: the add_memory tool is offered and saved memories reach later chats. Default off. */
  memory?: 'on' | 'off';
  /** Hosts the guarded fetch may reach although they are private (an on-premise wiki, a local SearXNG). */
  allowHosts?: string[];
  /**
   * The coding agent's repository host (default github.com; templates with `{owner}` and `{repo}`), the NAME of the
   * variable holding a token for private repositories, and the local folders it may open (none by default).
   */
  codingAgent?: {
    archiveUrl?: string;
    tokenArchiveUrl?: string;
    webHosts?: string[];
    tokenEnv?: string;
    localRoots?: string[];
  };
}

/** Where everything lives, and the settings in force. */
export interface CliConfig {
  /** `$TOOLBUS_HOME`, else `~/.toolbus`. */
  readonly home: string;
  readonly configFile: string;
  readonly databaseFile: string;
  readonly indexFile: string;
  readonly skillsDirectory: string;
  readonly file: ToolbusConfigFile;
  /** The model string in force and where it came from. */
  readonly model: {
    readonly value: string | undefined;
    readonly source: 'flag' | 'TOOLBUS_MODEL' | 'config file' | 'default';
  };
}

/** The keys `toolbus config set` accepts. */
export const CONFIG_KEYS = [
  'model',
  'memory',
  'sandboxUrl',
  'webSearch.provider',
  'webSearch.apiKeyEnv',
  'webSearch.baseUrl',
  'webSearch.searchEngineId',
  'imageGeneration.baseUrl',
  'imageGeneration.model',
  'imageGeneration.apiKeyEnv',
  'allowHosts',
] as const;

/** Resolves where toolbus keeps its files and reads the config file (a broken file is a clear error). */
export function loadCliConfig(options: {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly modelFlag?: string | undefined;
}): CliConfig {
  const home = resolve(options.env.TOOLBUS_HOME || join(options.env.HOME || homedir(), '.toolbus'));
  const configFile = join(home, 'config.json');
  const file = readConfigFile(configFile);
  const model = options.modelFlag
    ? { value: options.modelFlag, source: 'flag' as const }
    : options.env.TOOLBUS_MODEL
      ? { value: options.env.TOOLBUS_MODEL, source: 'TOOLBUS_MODEL' as const }
      : file.model
        ? { value: file.model, source: 'config file' as const }
        : { value: undefined, source: 'default' as const };
  return {
    home,
    configFile,
    databaseFile: join(home, 'toolbus.db'),
    indexFile: join(home, 'index.db'),
    skillsDirectory: join(home, 'skills'),
    file,
    model,
  };
}

function readConfigFile(path: string): ToolbusConfigFile {
  if (!existsSync(path)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ToolbusError({
      code: 'config_invalid',
      message: `${path} is not valid JSON (${(error as Error).message}). Fix or delete it; \`toolbus config\` shows the expected keys.`,
    });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ToolbusError({ code: 'config_invalid', message: `${path} must hold a JSON object.` });
  }
  return parsed as ToolbusConfigFile;
}

/** Sets one key in the config file, writing it atomically (a crash never leaves half a file). */
export async function setConfigValue(
  config: CliConfig,
  key: string,
  value: string | undefined,
): Promise<void> {
  if (!(CONFIG_KEYS as readonly string[]).includes(key)) {
    throw new ToolbusError({
      code: 'config_unknown_key',
      message: `Unknown setting "${key}". Settings: ${CONFIG_KEYS.join(', ')}.`,
    });
  }
  if (/key$/i.test(key) && !/Env$/.test(key)) {
    throw new ToolbusError({
      code: 'config_secret',
      message: 'Keys are not stored in the config file: set an environment variable and store its name.',
    });
  }
  const next = structuredClone(config.file) as Record<string, unknown>;
  const [head, tail] = key.split('.') as [string, string | undefined];
  const parsedValue =
    key === 'allowHosts' && value !== undefined
      ? value
          .split(',')
          .map((host) => host.trim())
          .filter(Boolean)
      : value;
  if (tail) {
    const section = (typeof next[head] === 'object' && next[head] !== null ? next[head] : {}) as Record<
      string,
      unknown
    >;
    if (parsedValue === undefined) delete section[tail];
    else section[tail] = parsedValue;
    next[head] = section;
  } else if (parsedValue === undefined) delete next[head];
  else next[head] = parsedValue;
  await mkdir(dirname(config.configFile), { recursive: true, mode: 0o700 });
  const temporary = `${config.configFile}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, config.configFile);
}

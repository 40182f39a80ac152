import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { GatewayConfig } from '@toolbus/gateway';
import type { BuiltInToolSettings } from '@toolbus/server';
import { ToolbusError } from '@toolbus/spec';
import { configFileProblems } from './config-file-problems.ts';
import { CONFIG_KEYS, parseSettingValue, resolveSetting } from './config-schema.ts';
import { unreadableFileReason } from './unreadable-file.ts';

/**
 * The settings a config file may hold. Keys never live here: only the NAMES of the variables that hold them. What
 * the built-in tools and a turn read (`sandboxUrl`, `webSearch`, `toolLimits`, `toolCallDialects`, …) is declared
 * once by the server's {@link BuiltInToolSettings}, which `toolbus chat` and `toolbus serve` both pass on.
 */
export interface ToolbusConfigFile extends BuiltInToolSettings {
  /** A model string (`ollama:qwen2.5:7b`, `openai:gpt-4.1`, `openai-compatible:<url>#<model>`). */
  model?: string;
  /** `on`: the add_memory tool is offered and saved memories reach later chats. Default off. */
  memory?: 'on' | 'off';
  /** Hosts the guarded fetch may reach although they are private (an on-premise wiki, a local SearXNG). */
  allowHosts?: string[];
  /**
   * Where storage lives when not in the embedded SQLite file: `url` a PostgreSQL URL without password (the driver
   * reads `PGPASSWORD`), or `urlEnv` the NAME of a variable holding the whole URL. `TOOLBUS_STORAGE_URL` wins.
   */
  storage?: { url?: string; urlEnv?: string };
  /**
   * Redis shared by several `toolbus serve` replicas (docs/scale-out.md); without it turns run in-process. The
   * timing decides how fast a dead replica's turns are taken over (see scale-out-timing.ts).
   */
  redis?: { url?: string; turnLockMs?: number; stalledCheckMs?: number; slotTtlMs?: number };
  /** MCP client settings: `toolCallTimeoutMs`, how long a tool call may go without progress (default 10 min). */
  mcp?: { toolCallTimeoutMs?: number };
  /** Skill names the administrator reserves, on top of the built-in skills' names (always reserved). */
  skills?: { reservedNames?: string[] };
  /** `toolbus gateway`'s upstream model servers and limits (keys by variable NAME only). */
  gateway?: GatewayConfig;
}

/** Where everything lives, and the settings in force. */
export interface CliConfig {
  /** `$TOOLBUS_HOME`, else `~/.toolbus`. */
  readonly home: string;
  readonly configFile: string;
  readonly databaseFile: string;
  /** The PostgreSQL URL storage uses instead of `databaseFile`, and where it came from (never printed whole). */
  readonly storageUrl: {
    readonly value: string | undefined;
    readonly source: 'TOOLBUS_STORAGE_URL' | 'storage.urlEnv' | 'config file' | 'default';
  };
  readonly indexFile: string;
  readonly skillsDirectory: string;
  readonly file: ToolbusConfigFile;
  /** What is wrong with the config file (unreadable JSON, unknown keys, wrong types); empty when nothing is. */
  readonly problems: readonly string[];
  /** The model string in force and where it came from. */
  readonly model: {
    readonly value: string | undefined;
    readonly source: 'flag' | 'TOOLBUS_MODEL' | 'config file' | 'default';
  };
}

/**
 * Resolves where toolbus keeps its files and reads the config file. A file that is not JSON, or that holds an
 * unknown key or a value of the wrong type, is a clear error naming the file and the key (a misspelt setting is
 * never silently ignored), unless `tolerant` (for `toolbus config`, which must work to fix it): then it reads as
 * empty, with the problem. `keepProblems` (for `config set` / `unset`, which fix keys) only lists the schema's
 * problems instead of refusing them.
 */
export function loadCliConfig(options: {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly modelFlag?: string | undefined;
  readonly tolerant?: boolean;
  readonly keepProblems?: boolean;
}): CliConfig {
  const home = resolve(options.env.TOOLBUS_HOME || join(options.env.HOME || homedir(), '.toolbus'));
  const configFile = join(home, 'config.json');
  let file: ToolbusConfigFile;
  let problems: string[];
  try {
    file = readConfigFile(configFile);
    problems = configFileProblems(file as Record<string, unknown>);
  } catch (error) {
    if (!options.tolerant) throw error;
    file = {};
    problems = [(error as Error).message];
  }
  if (problems.length > 0 && !options.tolerant && !options.keepProblems) {
    throw new ToolbusError({
      code: 'config_invalid',
      message: `${configFile}: ${problems.join('; ')} (fix the file, or \`toolbus config unset <key>\`; \`toolbus config\` lists the settings)`,
    });
  }
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
    storageUrl: resolveStorageUrl(file, options.env),
    indexFile: join(home, 'index.db'),
    skillsDirectory: join(home, 'skills'),
    file,
    problems,
    model,
  };
}

/** Where the skills live on SQLite (registry and bundles): `$TOOLBUS_DATA_DIR`, else `<toolbus home>/skills`. */
export function skillsDataDirectory(
  config: CliConfig,
  env: Readonly<Record<string, string | undefined>>,
): string {
  return env.TOOLBUS_DATA_DIR || config.skillsDirectory;
}

function resolveStorageUrl(
  file: ToolbusConfigFile,
  env: Readonly<Record<string, string | undefined>>,
): CliConfig['storageUrl'] {
  if (env.TOOLBUS_STORAGE_URL) return { value: env.TOOLBUS_STORAGE_URL, source: 'TOOLBUS_STORAGE_URL' };
  const fromVariable = file.storage?.urlEnv === undefined ? undefined : env[file.storage.urlEnv];
  if (fromVariable) return { value: fromVariable, source: 'storage.urlEnv' };
  if (file.storage?.url) return { value: file.storage.url, source: 'config file' };
  return { value: undefined, source: 'default' };
}

function readConfigFile(path: string): ToolbusConfigFile {
  if (!existsSync(path)) return {};
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ToolbusError({
      code: 'config_unreadable',
      message: `${path} cannot be read (${unreadableFileReason(error as NodeJS.ErrnoException)}). Fix or delete it; \`toolbus config\` shows the expected keys.`,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
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

/** Sets (or with `undefined` removes) one setting, validated against the schema, writing the file atomically. */
export async function setConfigValue(
  config: CliConfig,
  key: string,
  value: string | undefined,
): Promise<void> {
  const next = structuredClone(config.file) as Record<string, unknown>;
  // `unset` of a key the schema does not know removes it when the file holds it (a misspelt setting to clean up).
  if (value === undefined && removeUnknownKey(next, key)) {
    await writeConfigFile(config, next);
    return;
  }
  const resolved = resolveSetting(key);
  const parsedValue = value === undefined ? undefined : parseSettingValue(resolved, value);
  let section = next;
  const path = resolved.path;
  for (const part of path.slice(0, -1)) {
    const inner = section[part];
    section[part] = typeof inner === 'object' && inner !== null && !Array.isArray(inner) ? inner : {};
    section = section[part] as Record<string, unknown>;
  }
  const last = path.at(-1) as string;
  if (parsedValue === undefined) delete section[last];
  else section[last] = parsedValue;
  await writeConfigFile(config, next);
}

/** Deletes `key` (dotted: `webSerch.provider`) from `file` when it is not a known setting and the file holds it. */
function removeUnknownKey(file: Record<string, unknown>, key: string): boolean {
  if (CONFIG_KEYS.includes(key) || /^toolLimits\./.test(key)) return false;
  const parts = key.split('.');
  let section: Record<string, unknown> = file;
  for (const part of parts.slice(0, -1)) {
    const inner = section[part];
    if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) return false;
    section = inner as Record<string, unknown>;
  }
  const last = parts.at(-1) as string;
  if (!Object.hasOwn(section, last)) return false;
  delete section[last];
  return true;
}

async function writeConfigFile(config: CliConfig, next: Record<string, unknown>): Promise<void> {
  await mkdir(dirname(config.configFile), { recursive: true, mode: 0o700 });
  const temporary = `${config.configFile}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, config.configFile);
}

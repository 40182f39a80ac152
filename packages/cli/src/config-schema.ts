import { parseModelString } from '@toolbus/core';
import { ToolbusError } from '@toolbus/spec';
import { closestName } from './closest-name.ts';

/** What kind of value a setting takes. */
type SettingKind =
  | { readonly type: 'model' }
  | { readonly type: 'url' }
  | { readonly type: 'url-list' }
  | { readonly type: 'redis-url' }
  | { readonly type: 'enum'; readonly values: readonly string[] }
  | { readonly type: 'env-name' }
  | { readonly type: 'text' }
  | { readonly type: 'host-list' }
  | { readonly type: 'positive-integer' }
  | { readonly type: 'storage-url' }
  | { readonly type: 'dialect-list' }
  | { readonly type: 'path-list' }
  | { readonly type: 'url-template' };

/** One setting `toolbus config set` accepts. */
export interface ConfigSetting {
  readonly key: string;
  readonly kind: SettingKind;
  readonly description: string;
}

/** The web search providers `webSearch.provider` may name (the ones @toolbus/tools can build). */
export const WEB_SEARCH_PROVIDERS = ['brave', 'exa', 'serper', 'google', 'searxng', 'tavily'] as const;

/**
 * Every setting of the config file, with its type: `config set` validates against it, and `config` lists it
 * when the file is broken. Per-model tool limits are written `toolLimits.<model or *>.maxTools|maxTokens`.
 */
export const CONFIG_SCHEMA: readonly ConfigSetting[] = [
  { key: 'model', kind: { type: 'model' }, description: 'provider:model, e.g. openai:gpt-4.1' },
  { key: 'memory', kind: { type: 'enum', values: ['on', 'off'] }, description: 'offer add_memory' },
  { key: 'sandboxUrl', kind: { type: 'url' }, description: 'the run_python sandbox service' },
  {
    key: 'sandboxUrls',
    kind: { type: 'url-list' },
    description: 'several sandbox services, load-balanced (a,b)',
  },
  {
    key: 'sandboxEgress',
    kind: { type: 'enum', values: ['proxy', 'off'] },
    description: "run_python network through the sandbox services' egress proxy (signed run tokens)",
  },
  {
    key: 'webSearch.provider',
    kind: { type: 'enum', values: WEB_SEARCH_PROVIDERS },
    description: 'web search provider',
  },
  { key: 'webSearch.apiKeyEnv', kind: { type: 'env-name' }, description: 'variable holding its key' },
  { key: 'webSearch.baseUrl', kind: { type: 'url' }, description: 'provider URL (SearXNG)' },
  { key: 'webSearch.searchEngineId', kind: { type: 'text' }, description: 'Google engine id' },
  { key: 'imageGeneration.baseUrl', kind: { type: 'url' }, description: 'OpenAI-style images API' },
  { key: 'imageGeneration.model', kind: { type: 'text' }, description: 'image model' },
  { key: 'imageGeneration.apiKeyEnv', kind: { type: 'env-name' }, description: 'variable holding its key' },
  { key: 'allowHosts', kind: { type: 'host-list' }, description: 'private hosts tools may reach (a,b)' },
  {
    key: 'skills.reservedNames',
    kind: { type: 'host-list' },
    description: 'skill names only the administrator may use (a,b)',
  },
  {
    key: 'storage.url',
    kind: { type: 'storage-url' },
    description: 'PostgreSQL instead of the embedded SQLite file (password in PGPASSWORD)',
  },
  {
    key: 'storage.urlEnv',
    kind: { type: 'env-name' },
    description: 'variable holding the whole PostgreSQL URL, password included',
  },
  {
    key: 'redis.url',
    kind: { type: 'redis-url' },
    description: 'Redis shared by server replicas (docs/scale-out.md)',
  },
  {
    key: 'redis.turnLockMs',
    kind: { type: 'positive-integer' },
    description: "a worker's hold on a turn; a dead one's turns are taken over after it (default 30000)",
  },
  {
    key: 'redis.stalledCheckMs',
    kind: { type: 'positive-integer' },
    description: 'how often workers look for turns of dead ones; adds up to this to takeover (default 15000)',
  },
  {
    key: 'redis.slotTtlMs',
    kind: { type: 'positive-integer' },
    description: "how long a dead replica's per-user turn slots count (default 30000)",
  },
  {
    key: 'toolLimits.<model|*>.maxTools',
    kind: { type: 'positive-integer' },
    description: 'more tools than this: tool search',
  },
  {
    key: 'toolLimits.<model|*>.maxTokens',
    kind: { type: 'positive-integer' },
    description: 'tool definitions above this size: tool search',
  },
  {
    key: 'toolCallDialects',
    kind: { type: 'dialect-list' },
    description: 'text tool-call dialects tried first (a,b; none: all)',
  },
  {
    key: 'codingAgent.localRoots',
    kind: { type: 'path-list' },
    description: 'local folders coding_agent may open (absolute, a,b)',
  },
  {
    key: 'codingAgent.archiveUrl',
    kind: { type: 'url-template' },
    description: 'repository archive URL ({owner}, {repo}); default GitHub',
  },
  {
    key: 'codingAgent.tokenArchiveUrl',
    kind: { type: 'url-template' },
    description: 'archive URL used with the token (private repositories)',
  },
  {
    key: 'codingAgent.webHosts',
    kind: { type: 'host-list' },
    description: 'host names of repository web URLs (a,b)',
  },
  {
    key: 'codingAgent.tokenEnv',
    kind: { type: 'env-name' },
    description: 'variable holding the repository host token',
  },
];

/** The keys, for help texts. */
export const CONFIG_KEYS: readonly string[] = CONFIG_SCHEMA.map((setting) => setting.key);

/** A setting path: where it goes in the file (`['toolLimits', 'openai:gpt-4.1', 'maxTools']`). */
export interface ResolvedSetting {
  readonly setting: ConfigSetting;
  readonly path: readonly string[];
}

/** Finds the setting a key names; an unknown key is an error naming the closest known one. */
export function resolveSetting(key: string): ResolvedSetting {
  const limit = /^toolLimits\.(.+)\.(maxTools|maxTokens)$/.exec(key);
  if (limit) {
    const model = limit[1] as string;
    if (model !== '*') parseModelString(model);
    const setting = CONFIG_SCHEMA.find((candidate) =>
      candidate.key.endsWith(`.${limit[2]}`),
    ) as ConfigSetting;
    return { setting, path: ['toolLimits', model, limit[2] as string] };
  }
  const setting = CONFIG_SCHEMA.find((candidate) => candidate.key === key);
  if (setting === undefined) {
    // A key itself (`webSearch.apiKey`) has a setting for the name of the variable that holds it: say which. A
    // name merely ending in "key" with no such setting is a typo, answered below with the closest setting.
    const secretKeyEnv = CONFIG_KEYS.find((known) => known.toLowerCase() === `${key}env`.toLowerCase());
    if (/key$/i.test(key) && secretKeyEnv !== undefined) {
      throw new ToolbusError({
        code: 'config_secret',
        message: `Keys are not stored in the config file: put it in an environment variable and store that variable's name (toolbus config set ${secretKeyEnv} NAME).`,
      });
    }
    // A mistyped key setting (`webSerch.apikey`) is closest to the setting for its variable's name.
    const suggestion =
      closestName(key, CONFIG_KEYS) ??
      (/key$/i.test(key) ? closestName(`${key}Env`, CONFIG_KEYS) : undefined);
    const secretNote = /key$/i.test(key)
      ? " Keys themselves are never stored here: put one in an environment variable and store that variable's name."
      : '';
    throw new ToolbusError({
      code: 'config_unknown_key',
      message: `Unknown setting "${key}"${suggestion ? ` — did you mean "${suggestion}"?` : ''}.${secretNote} Settings: ${CONFIG_KEYS.join(', ')}.`,
    });
  }
  return { setting, path: key.split('.') };
}

export { parseSettingValue } from './parse-setting-value.ts';

import { isAbsolute } from 'node:path';
import { defaultToolCallParsers, parseModelString } from '@toolbus/core';
import { gatewayConfigSchema } from '@toolbus/gateway';
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

/** Checks and converts a value given on the command line for a setting; a wrong value says what is expected. */
export function parseSettingValue(resolved: ResolvedSetting, raw: string): unknown {
  const { setting } = resolved;
  const fail = (expected: string): never => {
    throw new ToolbusError({
      code: 'config_invalid_value',
      message: `${setting.key} takes ${expected}, not "${raw}".`,
    });
  };
  switch (setting.kind.type) {
    case 'model':
      parseModelString(raw);
      return raw.trim();
    case 'url':
      if (!isHttpUrl(raw)) fail('an http(s) URL');
      return raw;
    case 'url-list': {
      const urls = raw
        .split(',')
        .map((url) => url.trim())
        .filter(Boolean);
      if (urls.length === 0 || !urls.every(isHttpUrl)) fail('http(s) URLs separated by commas');
      if (new Set(urls).size !== urls.length) fail('distinct URLs (one is listed twice)');
      return urls;
    }
    case 'redis-url': {
      // The URL may carry a password: the refusal names the setting, never echoes the value.
      let protocol: string | undefined;
      try {
        protocol = new URL(raw).protocol;
      } catch {
        protocol = undefined;
      }
      if (protocol !== 'redis:' && protocol !== 'rediss:') {
        throw new ToolbusError({
          code: 'config_invalid_value',
          message: `${setting.key} takes a redis:// or rediss:// URL (redis://host:6379/0).`,
        });
      }
      return raw;
    }
    case 'enum':
      if (!setting.kind.values.includes(raw)) {
        const suggestion = closestName(raw, setting.kind.values);
        fail(
          `one of ${setting.kind.values.join(', ')}${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`,
        );
      }
      return raw;
    case 'env-name':
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(raw)) {
        // What was given is most likely the secret itself: the refusal never repeats it.
        throw new ToolbusError({
          code: 'config_invalid_value',
          message: `${setting.key} takes the NAME of an environment variable (letters, digits, _), not the key itself; the value given is not repeated here.`,
        });
      }
      return raw;
    case 'host-list':
      return raw
        .split(',')
        .map((host) => host.trim())
        .filter(Boolean);
    case 'storage-url': {
      let url: URL | undefined;
      try {
        url = new URL(raw);
      } catch {
        fail('a postgres:// or postgresql:// URL');
      }
      if (url && url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
        fail('a postgres:// or postgresql:// URL');
      }
      if (url && url.password !== '') {
        // The file is not a place for secrets; the message must not repeat the password either.
        throw new ToolbusError({
          code: 'config_secret',
          message:
            'storage.url must not hold a password: put it in PGPASSWORD, or the whole URL in a variable named by storage.urlEnv.',
        });
      }
      return raw;
    }
    case 'dialect-list': {
      // Overrides the model profile (the dialects a model family writes); `none` turns profiles off.
      const names = raw
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean);
      if (names.length === 1 && names[0] === 'none') return [];
      const known = defaultToolCallParsers.map((parser) => parser.name);
      for (const name of names) {
        if (!known.includes(name)) {
          const suggestion = closestName(name, known);
          fail(`dialect names (${known.join(', ')})${suggestion ? `; did you mean "${suggestion}"?` : ''}`);
        }
      }
      return names;
    }
    case 'path-list': {
      const paths = raw
        .split(',')
        .map((path) => path.trim())
        .filter(Boolean);
      if (paths.length === 0 || !paths.every((path) => isAbsolute(path))) {
        fail('absolute folder paths separated by commas');
      }
      return paths;
    }
    case 'url-template': {
      // `{owner}` and `{repo}` are filled in per repository; the rest must already be an http(s) URL.
      const filled = raw.replaceAll('{owner}', 'owner').replaceAll('{repo}', 'repo');
      if (!isHttpUrl(filled) || !raw.includes('{owner}') || !raw.includes('{repo}')) {
        fail('an http(s) URL holding {owner} and {repo}');
      }
      return raw;
    }
    case 'positive-integer': {
      const value = Number(raw);
      if (!Number.isSafeInteger(value) || value < 1) fail('a whole number above 0');
      return value;
    }
    default:
      return raw;
  }
}

/**
 * The problems of a parsed config file against the schema (unknown keys, wrong types), in words; empty when it
 * is fine. Used to refuse nothing silently: `toolbus config` prints them.
 */
export function configFileProblems(file: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(file)) {
    if (key === 'toolLimits') {
      if (typeof value !== 'object' || value === null) problems.push('toolLimits must be an object');
      continue;
    }
    if (key === 'gateway') {
      const parsed = gatewayConfigSchema.safeParse(value);
      if (!parsed.success)
        for (const issue of parsed.error.issues)
          problems.push(`gateway${issue.path.map((part) => `.${String(part)}`).join('')}: ${issue.message}`);
      continue;
    }
    const section = CONFIG_SCHEMA.filter((setting) => setting.key.split('.')[0] === key);
    if (section.length === 0) {
      problems.push(unknownKeyProblem(key));
      continue;
    }
    const flat =
      section.some((setting) => setting.key.includes('.')) && typeof value === 'object' && value !== null
        ? Object.entries(value as Record<string, unknown>).map(([tail, inner]) => [`${key}.${tail}`, inner])
        : [[key, value]];
    for (const [fullKey, inner] of flat as [string, unknown][]) {
      const setting = CONFIG_SCHEMA.find((candidate) => candidate.key === fullKey);
      if (setting === undefined) {
        problems.push(unknownKeyProblem(fullKey));
        continue;
      }
      if (setting.kind.type === 'dialect-list') {
        if (!Array.isArray(inner) || inner.some((name) => typeof name !== 'string'))
          problems.push(`${fullKey} must be a list of dialect names`);
        else if (inner.length > 0) {
          try {
            parseSettingValue({ setting, path: [fullKey] }, inner.join(','));
          } catch (error) {
            problems.push((error as Error).message);
          }
        }
        continue;
      }
      if (setting.kind.type === 'host-list') {
        if (!Array.isArray(inner)) problems.push(`${fullKey} must be a list of host names`);
        continue;
      }
      if (setting.kind.type === 'path-list') {
        if (!Array.isArray(inner) || !inner.every((path) => typeof path === 'string')) {
          problems.push(`${fullKey} must be a list of folder paths`);
          continue;
        }
        try {
          parseSettingValue({ setting, path: [fullKey] }, inner.join(','));
        } catch (error) {
          problems.push((error as Error).message);
        }
        continue;
      }
      if (setting.kind.type === 'url-list') {
        if (!Array.isArray(inner) || !inner.every((url) => typeof url === 'string')) {
          problems.push(`${fullKey} must be a list of URLs`);
          continue;
        }
        try {
          parseSettingValue({ setting, path: [fullKey] }, inner.join(','));
        } catch (error) {
          problems.push((error as Error).message);
        }
        continue;
      }
      if (typeof inner !== 'string') {
        problems.push(`${fullKey} must be a string`);
        continue;
      }
      try {
        parseSettingValue({ setting, path: fullKey.split('.') }, inner);
      } catch (error) {
        problems.push((error as Error).message);
      }
    }
  }
  if (file.sandboxUrl !== undefined && file.sandboxUrls !== undefined) {
    problems.push('set sandboxUrl (one service) or sandboxUrls (several), not both');
  }
  return problems;
}

/** `unknown key "modle" — did you mean "model"?` */
function unknownKeyProblem(key: string): string {
  const suggestion = closestName(key, CONFIG_KEYS);
  return `unknown key "${key}"${suggestion ? ` — did you mean "${suggestion}"?` : ''}`;
}

function isHttpUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

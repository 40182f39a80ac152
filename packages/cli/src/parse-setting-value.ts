import { isAbsolute } from 'node:path';
import { defaultToolCallParsers, parseModelString } from '@toolbus/core';
import { ToolbusError } from '@toolbus/spec';
import { describePostgresUrl, type PostgresTarget } from '@toolbus/storage-postgres/postgres-url';
import { closestName } from './closest-name.ts';
import type { ResolvedSetting } from './config-schema.ts';

/** The items of a comma-separated value, trimmed, the empty ones dropped (`a, b,` is `a` and `b`). */
function commaList(raw: string): string[] {
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
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
      const urls = commaList(raw);
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
      return commaList(raw);
    case 'storage-url': {
      let target: PostgresTarget | undefined;
      try {
        target = describePostgresUrl(raw);
      } catch {
        fail('a postgres:// or postgresql:// URL');
      }
      if (target?.hasPassword) {
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
      const names = commaList(raw);
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
      const paths = commaList(raw);
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

function isHttpUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

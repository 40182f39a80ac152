// The schema alone (zod, no gateway code): every command checks the config file, few serve a gateway.
import { gatewayConfigSchema } from '@toolbus/gateway/config';
import { closestName } from './closest-name.ts';
import { CONFIG_KEYS, CONFIG_SCHEMA, type ResolvedSetting } from './config-schema.ts';
import { parseSettingValue } from './parse-setting-value.ts';

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
      const problem = settingProblem(fullKey, inner);
      if (problem !== undefined) problems.push(problem);
    }
  }
  if (file.sandboxUrl !== undefined && file.sandboxUrls !== undefined) {
    problems.push('set sandboxUrl (one service) or sandboxUrls (several), not both');
  }
  return problems;
}

/** What a list setting holds, for its "must be a list of …" problem; `emptyAllowed`: `[]` is a value of its own. */
const listSettings: Readonly<Record<string, { readonly items: string; readonly emptyAllowed: boolean }>> = {
  'dialect-list': { items: 'dialect names', emptyAllowed: true },
  'path-list': { items: 'folder paths', emptyAllowed: false },
  'url-list': { items: 'URLs', emptyAllowed: false },
};

/** The problem of one setting's value in the file, checked as `toolbus config set` checks it. */
function settingProblem(fullKey: string, inner: unknown): string | undefined {
  const setting = CONFIG_SCHEMA.find((candidate) => candidate.key === fullKey);
  if (setting === undefined) return unknownKeyProblem(fullKey);
  const list = listSettings[setting.kind.type];
  if (setting.kind.type === 'host-list') {
    return Array.isArray(inner) ? undefined : `${fullKey} must be a list of host names`;
  }
  if (list !== undefined) {
    if (!Array.isArray(inner) || !inner.every((item) => typeof item === 'string')) {
      return `${fullKey} must be a list of ${list.items}`;
    }
    if (inner.length === 0 && list.emptyAllowed) return undefined;
    return parseProblem({ setting, path: [fullKey] }, inner.join(','));
  }
  if (typeof inner !== 'string') return `${fullKey} must be a string`;
  return parseProblem({ setting, path: fullKey.split('.') }, inner);
}

function parseProblem(resolved: ResolvedSetting, raw: string): string | undefined {
  try {
    parseSettingValue(resolved, raw);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** `unknown key "modle" — did you mean "model"?` */
function unknownKeyProblem(key: string): string {
  const suggestion = closestName(key, CONFIG_KEYS);
  return `unknown key "${key}"${suggestion ? ` — did you mean "${suggestion}"?` : ''}`;
}

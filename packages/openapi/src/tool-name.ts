import { sanitizeToolName } from '@toolbus/spec';

/** Options for {@link createToolNamer}. */
export interface ToolNamerOptions {
  /** Put before every name (joined with `_` unless it already ends in `_` or `-`). */
  readonly prefix?: string | undefined;
}

/** What a name is made from: the operationId when there is one, else the method and path. */
export interface ToolNameSource {
  readonly operationId?: string;
  readonly method: string;
  readonly path: string;
}

/**
 * A namer for one document: each call returns a provider-valid, unique name. The operationId is sanitised (any
 * character outside `[a-zA-Z0-9_-]` becomes `_`); without one, the name comes from method and path
 * (`GET /repos/{owner}/{repo}` → `get_repos_owner_repo`). Names over 64 characters are cut by the bus-wide rule
 * (`sanitizeToolName` of @toolbus/spec: a short hash of the whole keeps two long ids that share a prefix
 * distinct); a name already taken gets `_2`, `_3`, ...
 */
export function createToolNamer(options: ToolNamerOptions = {}): (source: ToolNameSource) => string {
  const prefix = sanitise(options.prefix ?? '');
  const joiner = prefix === '' || /[_-]$/.test(prefix) ? '' : '_';
  const taken = new Set<string>();
  return (source) => {
    const base = sanitise(source.operationId ?? '') || fallbackName(source.method, source.path);
    const full = sanitizeToolName(`${prefix}${joiner}${base}`);
    let name = full;
    for (let counter = 2; taken.has(name.toLowerCase()); counter += 1)
      name = sanitizeToolName(`${full}_${counter}`);
    // Case-insensitive uniqueness: some providers and UIs fold case.
    taken.add(name.toLowerCase());
    return name;
  };
}

function sanitise(text: string): string {
  return text
    .replace(/[^a-zA-Z0-9_-]+/g, '_')
    .replace(/_{2,}/g, '_')
    .replace(/^[_-]+|[_-]+$/g, '');
}

function fallbackName(method: string, path: string): string {
  const segments = path.split('/').map((segment) => sanitise(segment.replace(/[{}]/g, '')));
  return (
    sanitise([method.toLowerCase(), ...segments].filter((part) => part !== '').join('_')) ||
    method.toLowerCase()
  );
}

import { maxToolNameLength, sanitizeToolName } from '@toolbus/spec';

/** One tool of an assembly, as far as naming is concerned. */
export interface ToolNameCandidate {
  readonly name: string;
  readonly kind: 'built-in' | 'openapi' | 'mcp';
  /** For MCP tools: the `mcp_{server}_{tool}` name taken when the plain name collides. */
  readonly disambiguatedName?: string | undefined;
}

/** Which kinds keep their names first when a numeric suffix is the last resort: built-ins are looked up by name. */
const priority: Readonly<Record<ToolNameCandidate['kind'], number>> = { 'built-in': 0, openapi: 1, mcp: 2 };

/**
 * Final LLM-facing names for the tools of one assembly, aligned with `candidates`. Every name is provider-valid
 * (`^[a-zA-Z0-9_-]{1,64}$`) and unique, compared case-insensitively (some providers and UIs fold case): an MCP
 * tool whose name collides with any other tool takes its `mcp_{server}_{tool}` name; anything still taken gets
 * `_2`, `_3`, ... (built-ins first, then OpenAPI, then MCP keep their names, in row order within a kind).
 */
export function resolveToolNames(candidates: readonly ToolNameCandidate[]): string[] {
  const sanitized = candidates.map((candidate) => sanitizeToolName(candidate.name));
  const counts = new Map<string, number>();
  for (const name of sanitized) counts.set(name.toLowerCase(), (counts.get(name.toLowerCase()) ?? 0) + 1);
  const wanted = candidates.map((candidate, index) => {
    const name = sanitized[index] ?? 'tool';
    const collides = (counts.get(name.toLowerCase()) ?? 0) > 1;
    return candidate.kind === 'mcp' && collides && candidate.disambiguatedName !== undefined
      ? sanitizeToolName(candidate.disambiguatedName)
      : name;
  });
  const order = candidates
    .map((candidate, index) => ({ index, rank: priority[candidate.kind] }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index);
  const taken = new Set<string>();
  const result = new Array<string>(candidates.length);
  for (const { index } of order) {
    const base = wanted[index] ?? 'tool';
    let name = base;
    for (let counter = 2; taken.has(name.toLowerCase()); counter += 1) {
      const suffix = `_${counter}`;
      name = `${base.slice(0, maxToolNameLength - suffix.length)}${suffix}`;
    }
    taken.add(name.toLowerCase());
    result[index] = name;
  }
  return result;
}

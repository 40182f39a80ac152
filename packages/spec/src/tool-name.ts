/** The longest function name every major provider accepts. */
export const maxToolNameLength = 64;

/** The name pattern every major provider accepts for a function (OpenAI, Anthropic, Gemini, ...). */
export const toolNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;

const hashLength = 8;

/**
 * Makes a name valid for every LLM provider ({@link toolNamePattern}): each other character becomes `_`, an empty
 * name becomes `tool`, and a name over 64 characters keeps its first 55 characters, `_` and an 8-digit hex FNV-1a
 * hash of the whole original name, so two long names that share a prefix stay distinct. Deterministic: the same
 * name always gives the same result (stored approvals and assembled names depend on it).
 */
export function sanitizeToolName(name: string): string {
  const replaced = name.replace(/[^a-zA-Z0-9_-]/g, '_');
  if (replaced.length === 0) return 'tool';
  if (replaced.length <= maxToolNameLength) return replaced;
  return `${replaced.slice(0, maxToolNameLength - hashLength - 1)}_${fnv1a(name)}`;
}

// FNV-1a (32 bit): stable, tiny, and free of Node-only crypto, so every package root can use it.
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(hashLength, '0');
}

// NUL bytes cannot be stored by many databases and lone surrogates cannot be encoded as UTF-8: both are removed
// from everything recovered from model output before it reaches a tool or the history.
const unsafeCharacter = /[\u0000\uD800-\uDFFF]/;
const unsafeSequence = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Removes NUL bytes and unpaired surrogate halves from a string (paired surrogates are kept). */
export function sanitizeString(value: string): string {
  if (!unsafeCharacter.test(value)) return value;
  return value.replace(unsafeSequence, '');
}

/** Applies {@link sanitizeString} to every string (keys included) inside a JSON-like value. */
export function sanitizeJsonValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return sanitizeString(value);
  if (value === null || typeof value !== 'object' || depth > 64) return value;
  if (Array.isArray(value)) return value.map((item) => sanitizeJsonValue(item, depth + 1));
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    result[sanitizeString(key)] = sanitizeJsonValue(item, depth + 1);
  }
  return result;
}

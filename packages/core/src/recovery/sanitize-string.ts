// NUL bytes cannot be stored by many databases, other control characters are noise a model emitted by mistake
// (and break terminals and JSON), and lone surrogates cannot be encoded as UTF-8: all are removed from everything
// recovered from model output before it reaches a tool or the history. Tab, line feed and carriage return stay.
const unsafeCharacter = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uD800-\uDFFF]/;
const unsafeSequence =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Removes NUL and the other C0 control characters (except tab, line feed, carriage return), DEL and unpaired
 * surrogate halves from a string (paired surrogates are kept).
 */
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

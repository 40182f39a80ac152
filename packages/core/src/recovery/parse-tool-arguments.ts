import { sanitizeJsonValue } from './sanitize-string.ts';
import { parseJsonTolerant } from './tolerant-json-parse.ts';

const maximumDecodingRounds = 3;

/**
 * Turns whatever a model produced as "the arguments" into a plain object, tolerantly:
 * an object is kept; a JSON string is parsed, also when double-encoded (`"\"{\\\"a\\\":1}\""`); a string value
 * holding a JSON array or object (`{"queries": "[\"a\",\"b\"]"}`) becomes that array/object, while any other
 * string value stays a string; trailing commas and a truncated final brace are repaired; NUL bytes and lone
 * surrogates are removed from every string, keys included. Anything else becomes `{}`. Never throws.
 */
export function parseToolArguments(raw: unknown): Record<string, unknown> {
  try {
    let value = raw;
    for (let round = 0; round < maximumDecodingRounds && typeof value === 'string'; round++) {
      const trimmed = value.trim();
      if (trimmed === '') return {};
      const parsed = parseJsonTolerant(trimmed);
      if (!parsed.ok) return {};
      value = parsed.value;
    }
    if (!isPlainObject(value)) return {};
    const result: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      result[key] = decodeJsonStringValue(item);
    }
    return sanitizeJsonValue(result) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** True for `{...}` objects (not arrays, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function decodeJsonStringValue(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  const first = trimmed[0];
  const last = trimmed[trimmed.length - 1];
  if (!((first === '[' && last === ']') || (first === '{' && last === '}'))) return value;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return typeof parsed === 'object' && parsed !== null ? parsed : value;
  } catch {
    return value;
  }
}

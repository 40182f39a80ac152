/**
 * True for a `{...}` object: not `null`, not an array. The check every reader of parsed JSON (tool arguments, a
 * request body, an API answer) makes before it reads fields by name.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

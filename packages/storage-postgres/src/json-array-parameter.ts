/**
 * JSON texts (packets, messages) as one JSON array: the parameter PostgreSQL splits with `json_array_elements`, each
 * element's text kept as it is. pg writes a `text[]` parameter by escaping every quote and backslash of every
 * element, about 20× the time of this join for a batch of 10 packets (BENCHMARKS.md, issue 30).
 */
export function jsonArray(texts: readonly string[]): string {
  return `[${texts.join(',')}]`;
}

/**
 * JSON texts (packets, messages) as one JSON array: the parameter the database splits (`json_array_elements` on
 * PostgreSQL, `json_each` on SQLite), each element's text kept as it is. pg writes an array parameter (`text[]`,
 * `int[]`) element by element through a generic path, escaping every quote and backslash: about 20× the time of this
 * join for a batch of 10 packets, and 15× `JSON.stringify` for 80 ids or numbers (BENCHMARKS.md, issue 30). So ids
 * and numbers go as `JSON.stringify` of their array, split by `json_array_elements_text` (SQLite: `json_each`).
 */
export function jsonArray(texts: readonly string[]): string {
  return `[${texts.join(',')}]`;
}

/**
 * JSON texts (packets, messages) as one JSON array: the parameter the database splits (`json_array_elements` on
 * PostgreSQL, `json_each` on SQLite), each element's text kept as it is. Ids and numbers go as `JSON.stringify` of
 * their array. Never an array parameter, which pg writes many times slower (docs/postgres-storage.md).
 */
export function jsonArray(texts: readonly string[]): string {
  return `[${texts.join(',')}]`;
}

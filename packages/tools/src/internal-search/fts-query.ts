const maxTerms = 32;

/**
 * Turns a model's query into a safe FTS5 MATCH expression: the words are quoted (so FTS syntax in a query, such as
 * `NEAR(` or `col:`, is never interpreted) and joined with OR, so BM25 ranks documents that match more of them
 * higher. Returns undefined when the query has no searchable word.
 */
export function toFtsQuery(query: string): string | undefined {
  const terms = toFtsTerms(query);
  return terms.length ? terms.join(' OR ') : undefined;
}

/** The quoted, de-duplicated terms of a query (at most 32). */
export function toFtsTerms(query: string): string[] {
  const terms: string[] = [];
  const seen = new Set<string>();
  for (const match of query.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
    const term = match[0];
    if (seen.has(term)) continue;
    seen.add(term);
    terms.push(`"${term}"`);
    if (terms.length >= maxTerms) break;
  }
  return terms;
}

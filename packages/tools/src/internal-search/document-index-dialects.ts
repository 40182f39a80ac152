// Where the search index's SQL differs between SQLite and PostgreSQL: table names, row locks, source prefixes and,
// above all, how chunks are matched and ranked. Everything else the index does is written once (document-index.ts;
// byte order is storage's `byteOrder`).
import type { StorageDialect } from '@toolbus/storage/backend';
import { type QueryExecutorProvider, type RawBuilder, sql } from 'kysely';
import { toFtsTerms } from './fts-query.ts';
import type { SearchHitRow } from './index-rows.ts';

/** What one database says differently; `db` runs raw SQL only (the index's tables are not storage's). */
export interface DocumentIndexDialect {
  readonly documents: RawBuilder<unknown>;
  readonly chunks: RawBuilder<unknown>;
  /** Appended to a read that a write in the same transaction depends on. */
  readonly lockRows: RawBuilder<unknown>;
  /** Whether `column` starts with `prefix`, served by an index. */
  startsWith(column: string, prefix: string): RawBuilder<boolean>;
  /** The best chunks of one organisation for a model's query, best first, up to `rows`. */
  search(
    db: QueryExecutorProvider,
    organizationId: string,
    query: string,
    rows: number,
  ): Promise<SearchHitRow[]>;
}

/** A search hit's columns (SearchHitRow) but its score, from chunks `c` and documents `d`. */
export const hitColumns = sql`c.id AS chunk_id, d.source_id, d.title, d.link, c.ordinal, c.content, c.content_hash, d.updated_at`;

/** The rows of a raw query on `db` or a transaction. */
export const rowsOf = async <Row>(db: QueryExecutorProvider, query: RawBuilder<Row>) =>
  (await query.execute(db)).rows;

/**
 * SQLite FTS5 with BM25 (title weighted 4 to the body's 1). A query is the OR of its quoted words, so FTS syntax in
 * it is never interpreted and chunks with more of the words rank higher; see {@link selectiveMatch}.
 */
const sqlite: DocumentIndexDialect = {
  documents: sql.table('documents'),
  chunks: sql.table('chunks'),
  // IMMEDIATE transactions already hold the whole database.
  lockRows: sql``,
  startsWith: (column, prefix) =>
    sql<boolean>`${sql.ref(column)} >= ${prefix} AND ${sql.ref(column)} < ${`${prefix}\u{10ffff}`}`,
  async search(db, organizationId, query, rows) {
    const match = await selectiveMatch(db, toFtsTerms(query));
    if (match === undefined) return [];
    return rowsOf(
      db,
      sql<SearchHitRow>`SELECT ${hitColumns}, -bm25(chunks_fts, 4.0, 1.0) AS score
      FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN documents d ON d.id = c.document_id
     WHERE chunks_fts MATCH ${match} AND d.organization_id = ${organizationId} ORDER BY score DESC LIMIT ${rows}`,
    );
  },
};

/**
 * The OR query of the terms that are selective. A term in a large share of all chunks ("the", "and") adds almost
 * nothing to BM25 ranking but makes SQLite score most of the index, so it is left out unless every term is that
 * common. Counting stops at the threshold, so the check is cheap even for the most common terms. The shares are of
 * the whole index (they only choose terms; no other organisation's text is returned).
 */
async function selectiveMatch(
  db: QueryExecutorProvider,
  terms: readonly string[],
): Promise<string | undefined> {
  if (terms.length <= 1) return terms[0];
  const [all] = await rowsOf(db, sql<{ chunks: number }>`SELECT count(*) AS chunks FROM chunks`);
  const threshold = Math.max(1000, Math.floor((all?.chunks ?? 0) * 0.02));
  const selective: string[] = [];
  for (const term of terms) {
    const [found] = await rowsOf(
      db,
      sql<{
        hits: number;
      }>`SELECT count(*) AS hits FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ${term} LIMIT ${threshold})`,
    );
    if ((found?.hits ?? 0) < threshold) selective.push(term);
  }
  return (selective.length > 0 ? selective : terms).join(' OR ');
}

// A query's words, each a prefix-free lexeme OR-ed together: websearch_to_tsquery parses the model's text safely
// (no syntax error is possible), and OR-ing its terms lets ts_rank_cd rank chunks with more of them higher, as the
// SQLite index's OR of quoted terms does, instead of dropping every chunk that lacks one word.
const anyTermQuery = (query: string) => sql`(SELECT COALESCE(
    string_agg(quote_literal(lexeme), ' | ')::tsquery,
    ''::tsquery)
  FROM unnest(tsvector_to_array(to_tsvector('english', ${query}))) AS lexeme)`;

/**
 * PostgreSQL full-text search: each chunk's stored, weighted `tsvector` under a GIN index, queries parsed with
 * `websearch_to_tsquery` and ranked with `ts_rank_cd` (title above body), chunks with every word first.
 */
const postgres: DocumentIndexDialect = {
  documents: sql.table('search_documents'),
  chunks: sql.table('search_chunks'),
  // Another replica may write between the read and the write.
  lockRows: sql` FOR UPDATE`,
  startsWith: (column, prefix) => sql<boolean>`starts_with(${sql.ref(column)}, ${prefix})`,
  // websearch_to_tsquery never fails on hostile syntax; a query of only stop words or punctuation matches nothing,
  // as on SQLite.
  search: (db, organizationId, query, rows) =>
    rowsOf(
      db,
      sql<SearchHitRow>`
     WITH parsed AS (SELECT websearch_to_tsquery('english', ${query}) AS strict, ${anyTermQuery(query)} AS loose)
     SELECT ${hitColumns},
            ts_rank_cd(c.search_vector, parsed.loose) + ts_rank_cd(c.search_vector, parsed.strict) AS score
       FROM parsed, search_chunks c JOIN search_documents d ON d.id = c.document_id
      WHERE numnode(parsed.loose) > 0 AND c.search_vector @@ parsed.loose AND d.organization_id = ${organizationId}
      ORDER BY score DESC, c.id
      LIMIT ${rows}`,
    ),
};

export const documentIndexDialects: Readonly<Record<StorageDialect, DocumentIndexDialect>> = {
  sqlite,
  postgres,
};

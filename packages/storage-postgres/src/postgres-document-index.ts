import { DEFAULT_ORGANIZATION_ID, type Migration } from '@toolbus/storage';
import { migrate } from '@toolbus/storage/backend';
import {
  type DocumentScope,
  type DocumentSearchIndex,
  distinctChunks,
  documentHash,
  type IndexedDocumentRow,
  listLimit,
  type SearchHitRow,
  searchLimit,
  toIndexedDocumentInfo,
  toSearchHits,
} from '@toolbus/tools';
import type pg from 'pg';
import { postgresMigrationTarget } from './postgres-migration-target.ts';
import { openPostgresPool } from './postgres-pool.ts';
import { inPostgresTransaction } from './postgres-transaction.ts';

/** Options of {@link openPostgresDocumentIndex}. */
export interface OpenPostgresDocumentIndexOptions {
  /** `postgres://` / `postgresql://` URL (the storage database may hold the index too: its tables are separate). */
  readonly url: string;
  /** Characters per chunk (default 1,200, as the SQLite index). */
  readonly maxChunkChars?: number;
  /** Connections this index keeps open at most (default 5). */
  readonly maxConnections?: number;
}

/**
 * The search index's schema: chunks with a stored `tsvector` (title weighted A above body B, English stemming)
 * under a GIN index. Separate from storage's schema, with its own version table, so either can move alone.
 */
export const postgresDocumentIndexMigrations: readonly Migration[] = [
  {
    name: 'documents and chunks with a weighted tsvector under GIN',
    sql: () => `
CREATE TABLE search_documents (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  source_id text NOT NULL UNIQUE,
  title text NOT NULL,
  link text,
  content_hash text NOT NULL,
  updated_at text,
  indexed_at timestamptz NOT NULL
);
CREATE INDEX search_documents_link ON search_documents (link);
CREATE INDEX search_documents_source_prefix ON search_documents (source_id text_pattern_ops);
CREATE TABLE search_chunks (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  document_id bigint NOT NULL REFERENCES search_documents(id) ON DELETE CASCADE,
  ordinal integer NOT NULL,
  title text NOT NULL,
  content text NOT NULL,
  content_hash text NOT NULL,
  search_vector tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', content), 'B')
  ) STORED
);
CREATE INDEX search_chunks_document ON search_chunks (document_id, ordinal);
CREATE INDEX search_chunks_search_vector ON search_chunks USING GIN (search_vector);
`,
  },
  {
    name: 'documents belong to an organisation and record who indexed them',
    // Existing documents are the default organisation's; a source id is unique per organisation.
    sql: () => `
ALTER TABLE search_documents ADD COLUMN organization_id text NOT NULL DEFAULT '${DEFAULT_ORGANIZATION_ID}';
ALTER TABLE search_documents ADD COLUMN uploaded_by text;
ALTER TABLE search_documents DROP CONSTRAINT search_documents_source_id_key;
ALTER TABLE search_documents ADD CONSTRAINT search_documents_organization_source UNIQUE (organization_id, source_id);
DROP INDEX search_documents_link;
DROP INDEX search_documents_source_prefix;
CREATE INDEX search_documents_link ON search_documents (organization_id, link);
CREATE INDEX search_documents_source_prefix ON search_documents (organization_id, source_id text_pattern_ops);
`,
  },
];

// A query's words, each a prefix-free lexeme OR-ed together: websearch_to_tsquery parses the model's text safely
// (no syntax error is possible), and OR-ing its terms lets ts_rank_cd rank chunks with more of them higher, as the
// SQLite index's OR of quoted terms does, instead of dropping every chunk that lacks one word.
const anyTermQuery = `(SELECT COALESCE(
    string_agg(quote_literal(lexeme), ' | ')::tsquery,
    ''::tsquery)
  FROM unnest(tsvector_to_array(to_tsvector('english', $1))) AS lexeme)`;

/**
 * The internal_search index on PostgreSQL full-text search, for deployments whose replicas share one database:
 * documents cut into chunks, a weighted `tsvector` per chunk under a GIN index, queries parsed with
 * `websearch_to_tsquery` and ranked with `ts_rank_cd` (title above body). Identical chunks are stored once per
 * document and de-duplicated in results, as in the SQLite index. A view of one organisation
 * (`forOrganization`) leaves the pool open when closed.
 */
function postgresDocumentIndex(
  pool: pg.Pool,
  maxChunkChars: number,
  scope: DocumentScope,
  ownsPool: boolean,
): DocumentSearchIndex {
  const { organizationId } = scope;
  return {
    async upsert(document) {
      const contentHash = documentHash(document);
      const chunks = distinctChunks(document.text, maxChunkChars);
      return inPostgresTransaction(pool, async (client) => {
        // Locks the document row (when there is one), so two replicas indexing one source do not interleave.
        const existing = await client.query<{ id: number; content_hash: string }>(
          'SELECT id, content_hash FROM search_documents WHERE organization_id = $1 AND source_id = $2 FOR UPDATE',
          [organizationId, document.sourceId],
        );
        const found = existing.rows[0];
        if (found?.content_hash === contentHash) return 'unchanged';
        if (found) await client.query('DELETE FROM search_chunks WHERE document_id = $1', [found.id]);
        const written = await client.query<{ id: number }>(
          `INSERT INTO search_documents
             (organization_id, source_id, title, link, content_hash, updated_at, indexed_at, uploaded_by)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
           ON CONFLICT (organization_id, source_id) DO UPDATE SET title = $3, link = $4, content_hash = $5,
             updated_at = $6, indexed_at = $7, uploaded_by = COALESCE($8, search_documents.uploaded_by)
           RETURNING id`,
          [
            organizationId,
            document.sourceId,
            document.title,
            document.link ?? null,
            contentHash,
            document.updatedAt ?? null,
            new Date().toISOString(),
            scope.uploadedBy ?? null,
          ],
        );
        await client.query(
          `INSERT INTO search_chunks (document_id, ordinal, title, content, content_hash)
           SELECT $1, c.ordinal, $2, c.content, c.content_hash
             FROM unnest($3::integer[], $4::text[], $5::text[]) AS c(ordinal, content, content_hash)`,
          [
            written.rows[0]!.id,
            document.title,
            chunks.map((chunk) => chunk.ordinal),
            chunks.map((chunk) => chunk.content),
            chunks.map((chunk) => chunk.contentHash),
          ],
        );
        return found ? 'updated' : 'added';
      });
    },
    async hashOf(sourceId) {
      const { rows } = await pool.query<{ content_hash: string }>(
        'SELECT content_hash FROM search_documents WHERE organization_id = $1 AND source_id = $2',
        [organizationId, sourceId],
      );
      return rows[0]?.content_hash;
    },
    async remove(sourceId) {
      const result = await pool.query(
        'DELETE FROM search_documents WHERE organization_id = $1 AND source_id = $2',
        [organizationId, sourceId],
      );
      return (result.rowCount ?? 0) > 0;
    },
    async sourcesUnder(prefix) {
      const { rows } = await pool.query<{ source_id: string }>(
        `SELECT source_id FROM search_documents WHERE organization_id = $1 AND starts_with(source_id, $2)
          ORDER BY source_id`,
        [organizationId, prefix],
      );
      return rows.map((row) => row.source_id);
    },
    async search(query, options = {}) {
      const limit = searchLimit(options);
      // websearch_to_tsquery never fails on hostile syntax; a query of only stop words or punctuation matches
      // nothing, like the SQLite index.
      const { rows } = await pool.query<SearchHitRow>(
        `WITH parsed AS (SELECT websearch_to_tsquery('english', $1) AS strict, ${anyTermQuery} AS loose)
         SELECT c.id AS chunk_id, d.source_id, d.title, d.link, c.ordinal, c.content, c.content_hash, d.updated_at,
                ts_rank_cd(c.search_vector, parsed.loose) + ts_rank_cd(c.search_vector, parsed.strict) AS score
           FROM parsed, search_chunks c JOIN search_documents d ON d.id = c.document_id
          WHERE numnode(parsed.loose) > 0 AND c.search_vector @@ parsed.loose AND d.organization_id = $3
          ORDER BY score DESC, c.id
          LIMIT $2`,
        [query, limit * 2, organizationId],
      );
      return toSearchHits(rows, limit);
    },
    async findByLink(link) {
      const { rows } = await pool.query<SearchHitRow>(
        `SELECT c.id AS chunk_id, d.source_id, d.title, d.link, c.ordinal, c.content, c.content_hash, d.updated_at,
                0 AS score
           FROM search_documents d JOIN search_chunks c ON c.document_id = d.id
          WHERE d.organization_id = $1 AND d.link = $2 ORDER BY c.ordinal`,
        [organizationId, link],
      );
      return toSearchHits(rows);
    },
    async counts() {
      const { rows } = await pool.query<{ documents: number; chunks: number }>(
        `SELECT (SELECT count(*) FROM search_documents WHERE organization_id = $1) AS documents,
                (SELECT count(*) FROM search_chunks c JOIN search_documents d ON d.id = c.document_id
                  WHERE d.organization_id = $1) AS chunks`,
        [organizationId],
      );
      return { documents: rows[0]?.documents ?? 0, chunks: rows[0]?.chunks ?? 0 };
    },
    async list(options = {}) {
      const { rows } = await pool.query<IndexedDocumentRow>(
        `SELECT d.source_id, d.title, d.link, d.uploaded_by, d.indexed_at,
                (SELECT count(*) FROM search_chunks c WHERE c.document_id = d.id) AS chunks
           FROM search_documents d WHERE d.organization_id = $1 AND d.source_id COLLATE "C" > $2
          ORDER BY d.source_id COLLATE "C" LIMIT $3`,
        [organizationId, options.after ?? '', listLimit(options)],
      );
      return rows.map(toIndexedDocumentInfo);
    },
    forOrganization: (view) => postgresDocumentIndex(pool, maxChunkChars, view, false),
    async close() {
      if (ownsPool) await pool.end();
    },
  };
}

/** Opens (creating its tables when needed) the internal_search index on PostgreSQL. */
export async function openPostgresDocumentIndex(
  options: OpenPostgresDocumentIndexOptions,
): Promise<DocumentSearchIndex> {
  const pool = await openPostgresPool({ url: options.url, maxConnections: options.maxConnections ?? 5 });
  try {
    await migrate(postgresMigrationTarget(pool), postgresDocumentIndexMigrations, 'search_index_migrations');
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
  const scope = { organizationId: DEFAULT_ORGANIZATION_ID };
  return postgresDocumentIndex(pool, options.maxChunkChars ?? 1200, scope, true);
}

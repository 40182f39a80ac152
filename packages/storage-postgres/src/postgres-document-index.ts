import { DEFAULT_ORGANIZATION_ID, type Migration } from '@toolbus/storage';
import { migrate, type StorageSchema } from '@toolbus/storage/backend';
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
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { postgresMigrationTarget } from './postgres-migration-target.ts';
import { openPostgresPool, type PostgresConnectionOptions } from './postgres-pool.ts';

/**
 * Options of {@link openPostgresDocumentIndex}: the storage database may hold the index too (its tables are
 * separate); the index keeps at most 5 connections unless told otherwise.
 */
export interface OpenPostgresDocumentIndexOptions extends PostgresConnectionOptions {
  /** Characters per chunk (default 1,200, as the SQLite index). */
  readonly maxChunkChars?: number;
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
const anyTermQuery = (query: string) => sql`(SELECT COALESCE(
    string_agg(quote_literal(lexeme), ' | ')::tsquery,
    ''::tsquery)
  FROM unnest(tsvector_to_array(to_tsvector('english', ${query}))) AS lexeme)`;

/** Runs statements on `executor` (the pool's builder, whose schema the raw SQL here does not use, or a transaction). */
const rowsOn =
  (executor: Kysely<StorageSchema>) =>
  async <Row>(query: RawBuilder<Row>): Promise<Row[]> =>
    (await query.execute(executor)).rows;

/**
 * The internal_search index on PostgreSQL full-text search, for deployments whose replicas share one database:
 * documents cut into chunks, a weighted `tsvector` per chunk under a GIN index, queries parsed with
 * `websearch_to_tsquery` and ranked with `ts_rank_cd` (title above body). Identical chunks are stored once per
 * document and de-duplicated in results, as in the SQLite index. A view of one organisation
 * (`forOrganization`) leaves the pool open when closed.
 */
function postgresDocumentIndex(
  db: Kysely<StorageSchema>,
  maxChunkChars: number,
  scope: DocumentScope,
  ownsPool: boolean,
): DocumentSearchIndex {
  const { organizationId } = scope;
  const rowsOf = rowsOn(db);
  return {
    async upsert(document) {
      const contentHash = documentHash(document);
      const chunks = distinctChunks(document.text, maxChunkChars);
      return db.transaction().execute(async (trx) => {
        const inTransaction = rowsOn(trx);
        // Locks the document row (when there is one), so two replicas indexing one source do not interleave.
        const [found] = await inTransaction(sql<{ id: number; content_hash: string }>`
          SELECT id, content_hash FROM search_documents
           WHERE organization_id = ${organizationId} AND source_id = ${document.sourceId} FOR UPDATE`);
        if (found?.content_hash === contentHash) return 'unchanged';
        if (found) await sql`DELETE FROM search_chunks WHERE document_id = ${found.id}`.execute(trx);
        const [written] = await inTransaction(sql<{ id: number }>`INSERT INTO search_documents
             (organization_id, source_id, title, link, content_hash, updated_at, indexed_at, uploaded_by)
           VALUES (${organizationId}, ${document.sourceId}, ${document.title}, ${document.link ?? null},
             ${contentHash}, ${document.updatedAt ?? null}, ${new Date().toISOString()}, ${scope.uploadedBy ?? null})
           ON CONFLICT (organization_id, source_id) DO UPDATE SET title = EXCLUDED.title, link = EXCLUDED.link,
             content_hash = EXCLUDED.content_hash, updated_at = EXCLUDED.updated_at, indexed_at = EXCLUDED.indexed_at,
             uploaded_by = COALESCE(EXCLUDED.uploaded_by, search_documents.uploaded_by)
           RETURNING id`);
        await sql`INSERT INTO search_chunks (document_id, ordinal, title, content, content_hash)
           SELECT ${written!.id}, c.ordinal, ${document.title}, c.content, c.content_hash
             FROM unnest(${chunks.map((chunk) => chunk.ordinal)}::integer[],
               ${chunks.map((chunk) => chunk.content)}::text[], ${chunks.map((chunk) => chunk.contentHash)}::text[])
               AS c(ordinal, content, content_hash)`.execute(trx);
        return found ? 'updated' : 'added';
      });
    },
    async hashOf(sourceId) {
      const [found] = await rowsOf(sql<{ content_hash: string }>`SELECT content_hash FROM search_documents
          WHERE organization_id = ${organizationId} AND source_id = ${sourceId}`);
      return found?.content_hash;
    },
    async remove(sourceId) {
      const result = await sql`DELETE FROM search_documents
        WHERE organization_id = ${organizationId} AND source_id = ${sourceId}`.execute(db);
      return (result.numAffectedRows ?? 0n) > 0n;
    },
    async sourcesUnder(prefix) {
      const rows = await rowsOf(sql<{ source_id: string }>`SELECT source_id FROM search_documents
          WHERE organization_id = ${organizationId} AND starts_with(source_id, ${prefix}) ORDER BY source_id`);
      return rows.map((row) => row.source_id);
    },
    async search(query, options = {}) {
      const limit = searchLimit(options);
      // websearch_to_tsquery never fails on hostile syntax; a query of only stop words or punctuation matches
      // nothing, like the SQLite index.
      const rows = await rowsOf(sql<SearchHitRow>`
         WITH parsed AS (SELECT websearch_to_tsquery('english', ${query}) AS strict,
             ${anyTermQuery(query)} AS loose)
         SELECT c.id AS chunk_id, d.source_id, d.title, d.link, c.ordinal, c.content, c.content_hash, d.updated_at,
                ts_rank_cd(c.search_vector, parsed.loose) + ts_rank_cd(c.search_vector, parsed.strict) AS score
           FROM parsed, search_chunks c JOIN search_documents d ON d.id = c.document_id
          WHERE numnode(parsed.loose) > 0 AND c.search_vector @@ parsed.loose AND d.organization_id = ${organizationId}
          ORDER BY score DESC, c.id
          LIMIT ${limit * 2}`);
      return toSearchHits(rows, limit);
    },
    async findByLink(link) {
      const rows = await rowsOf(sql<SearchHitRow>`
         SELECT c.id AS chunk_id, d.source_id, d.title, d.link, c.ordinal, c.content,
                c.content_hash, d.updated_at, 0 AS score
           FROM search_documents d JOIN search_chunks c ON c.document_id = d.id
          WHERE d.organization_id = ${organizationId} AND d.link = ${link} ORDER BY c.ordinal`);
      return toSearchHits(rows);
    },
    async counts() {
      const [found] = await rowsOf(sql<{ documents: number; chunks: number }>`SELECT
          (SELECT count(*) FROM search_documents WHERE organization_id = ${organizationId}) AS documents,
          (SELECT count(*) FROM search_chunks c JOIN search_documents d ON d.id = c.document_id
            WHERE d.organization_id = ${organizationId}) AS chunks`);
      return { documents: found?.documents ?? 0, chunks: found?.chunks ?? 0 };
    },
    async list(options = {}) {
      const rows = await rowsOf(sql<IndexedDocumentRow>`
         SELECT d.source_id, d.title, d.link, d.uploaded_by, d.indexed_at,
                (SELECT count(*) FROM search_chunks c WHERE c.document_id = d.id) AS chunks
           FROM search_documents d WHERE d.organization_id = ${organizationId}
            AND d.source_id COLLATE "C" > ${options.after ?? ''}
          ORDER BY d.source_id COLLATE "C" LIMIT ${listLimit(options)}`);
      return rows.map(toIndexedDocumentInfo);
    },
    forOrganization: (view) => postgresDocumentIndex(db, maxChunkChars, view, false),
    async close() {
      if (ownsPool) await db.destroy();
    },
  };
}

/** Opens (creating its tables when needed) the internal_search index on PostgreSQL. */
export async function openPostgresDocumentIndex(
  options: OpenPostgresDocumentIndexOptions,
): Promise<DocumentSearchIndex> {
  const pool = await openPostgresPool({ maxConnections: 5, ...options });
  const target = postgresMigrationTarget(pool);
  try {
    await migrate(target, postgresDocumentIndexMigrations, 'search_index_migrations');
  } catch (error) {
    await target.db.destroy().catch(() => {});
    throw error;
  }
  const scope = { organizationId: DEFAULT_ORGANIZATION_ID };
  return postgresDocumentIndex(target.db, options.maxChunkChars ?? 1200, scope, true);
}

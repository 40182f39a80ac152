import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DEFAULT_ORGANIZATION_ID, openDatabaseFile } from '@toolbus/storage';
import {
  byteOrder,
  type EarlierNumbering,
  type MigrationTarget,
  migrate,
  sqliteMigrationTarget,
} from '@toolbus/storage/backend';
import { sql } from 'kysely';
import { documentIndexDialects, hitColumns, rowsOf } from './document-index-dialects.ts';
import { documentIndexMigrations } from './document-index-migrations.ts';
import type { DocumentScope, DocumentSearchIndex } from './document-search-index.ts';
import {
  distinctChunks,
  documentHash,
  type IndexedDocumentRow,
  listLimit,
  type SearchHitRow,
  searchLimit,
  toIndexedDocumentInfo,
  toSearchHits,
} from './index-rows.ts';

/** A document to index: its text is chunked; a re-index with the same hash is skipped. */
export interface IndexableDocument {
  /** Stable id of the source (a file path, a URL). */
  readonly sourceId: string;
  readonly title: string;
  /** Where a person can open it (a file path or URL); also how open_url finds it. */
  readonly link?: string;
  readonly text: string;
  /** Hash of the source's bytes; a document indexed with the same hash is not indexed again. */
  readonly contentHash?: string;
  readonly updatedAt?: string;
}

/** A chunk that matched a query. */
export interface SearchHit {
  readonly chunkId: number;
  readonly sourceId: string;
  readonly title: string;
  readonly link: string | undefined;
  readonly ordinal: number;
  readonly content: string;
  /** The database's rank (BM25 on SQLite, `ts_rank_cd` on PostgreSQL), higher is better. */
  readonly score: number;
  readonly updatedAt: string | undefined;
}

/** What `upsert` did. */
export type UpsertOutcome = 'added' | 'updated' | 'unchanged';

/** Options of {@link openSqlDocumentIndex}. */
export interface DocumentIndexOptions {
  /** Characters per chunk (default 1,200). */
  readonly maxChunkChars?: number;
}

/** Options of {@link openDocumentIndex}. */
export interface OpenDocumentIndexOptions extends DocumentIndexOptions {
  /** SQLite file, or `:memory:`. */
  readonly path: string;
}

/** Chunks per insert: 5 parameters each, well under SQLite's 32,766 and PostgreSQL's 65,535 per statement. */
const chunksPerInsert = 500;

/**
 * Opens (creating and migrating when needed) the embedded search index: a SQLite file of its own, its chunks in
 * FTS5. Fails closed on a file written by a newer toolbus (`schema_too_new`).
 */
export async function openDocumentIndex(options: OpenDocumentIndexOptions): Promise<DocumentSearchIndex> {
  if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
  const database = openDatabaseFile('The search index', options.path);
  // Foreign keys are off while the schema changes (a rebuilt table's drop must not cascade to its chunks).
  database.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = OFF;');
  const index = await openSqlDocumentIndex(sqliteMigrationTarget(database), options);
  database.exec('PRAGMA foreign_keys = ON');
  return index;
}

/**
 * Migrates the search index on `target`'s database (its own version table, `search_index_migrations`) and opens it:
 * how both the embedded index and the PostgreSQL one open. On a failure the builder is destroyed.
 */
export async function openSqlDocumentIndex(
  target: MigrationTarget,
  options: DocumentIndexOptions = {},
): Promise<DocumentSearchIndex> {
  try {
    const earlier = target.dialect === 'sqlite' ? countedInUserVersion : undefined;
    await migrate(target, documentIndexMigrations, 'search_index_migrations', earlier);
  } catch (error) {
    await target.db.destroy().catch(() => {});
    throw error;
  }
  const scope = { organizationId: DEFAULT_ORGANIZATION_ID };
  return sqlDocumentIndex(target, options.maxChunkChars ?? 1200, scope, true);
}

/**
 * Index files of the releases before the index ran on storage's migration runner counted the same steps in
 * `PRAGMA user_version`: the runner records them as its own, once.
 */
const countedInUserVersion: EarlierNumbering = async (trx) => {
  const [counted] = await rowsOf(trx, sql<{ user_version: number }>`PRAGMA user_version`);
  if (!counted?.user_version) return undefined;
  await sql`PRAGMA user_version = 0`.execute(trx);
  return counted.user_version;
};

/**
 * The internal_search index, written once for SQLite and PostgreSQL (their differences: document-index-dialects.ts):
 * documents cut into chunks, each distinct chunk text stored once per document and found once in results. Every
 * document belongs to one organisation; a view of another (`forOrganization`) leaves the database open when closed.
 */
function sqlDocumentIndex(
  target: MigrationTarget,
  maxChunkChars: number,
  scope: DocumentScope,
  ownsDatabase: boolean,
): DocumentSearchIndex {
  const { db } = target;
  const { documents, chunks, lockRows, startsWith, search } = documentIndexDialects[target.dialect];
  const inByteOrder = (column: string) => byteOrder(target.dialect, column);
  const { organizationId } = scope;
  return {
    upsert(document) {
      const contentHash = documentHash(document);
      const pieces = distinctChunks(document.text, maxChunkChars);
      return db.transaction().execute(async (trx) => {
        // Locked where another replica may index the same source meanwhile.
        const [found] = await rowsOf(
          trx,
          sql<{ id: number; content_hash: string }>`SELECT id, content_hash FROM ${documents}
             WHERE organization_id = ${organizationId} AND source_id = ${document.sourceId}${lockRows}`,
        );
        if (found?.content_hash === contentHash) return 'unchanged';
        const [written] = await rowsOf(
          trx,
          sql<{ id: number }>`INSERT INTO ${documents}
             (organization_id, source_id, title, link, content_hash, updated_at, indexed_at, uploaded_by)
           VALUES (${organizationId}, ${document.sourceId}, ${document.title}, ${document.link ?? null},
             ${contentHash}, ${document.updatedAt ?? null}, ${new Date().toISOString()}, ${scope.uploadedBy ?? null})
           ON CONFLICT (organization_id, source_id) DO UPDATE SET title = excluded.title, link = excluded.link,
             content_hash = excluded.content_hash, updated_at = excluded.updated_at, indexed_at = excluded.indexed_at,
             uploaded_by = COALESCE(excluded.uploaded_by, ${documents}.uploaded_by)
           RETURNING id`,
        );
        const documentId = written?.id;
        // By the id the write returned, not the one read: on PostgreSQL a replica indexing the same new source at the
        // same moment found no row to lock, and its chunks, committed while this write waited for the row, go too.
        await sql`DELETE FROM ${chunks} WHERE document_id = ${documentId}`.execute(trx);
        for (let first = 0; first < pieces.length; first += chunksPerInsert) {
          const values = pieces
            .slice(first, first + chunksPerInsert)
            .map(
              (piece) =>
                sql`(${documentId}, ${piece.ordinal}, ${document.title}, ${piece.content}, ${piece.contentHash})`,
            );
          await sql`INSERT INTO ${chunks} (document_id, ordinal, title, content, content_hash)
             VALUES ${sql.join(values)}`.execute(trx);
        }
        return found ? 'updated' : 'added';
      });
    },
    async hashOf(sourceId) {
      const [found] = await rowsOf(
        db,
        sql<{ content_hash: string }>`SELECT content_hash FROM ${documents}
          WHERE organization_id = ${organizationId} AND source_id = ${sourceId}`,
      );
      return found?.content_hash;
    },
    async remove(sourceId) {
      // The chunks go with their document (ON DELETE CASCADE).
      const result = await sql`DELETE FROM ${documents}
        WHERE organization_id = ${organizationId} AND source_id = ${sourceId}`.execute(db);
      return (result.numAffectedRows ?? 0n) > 0n;
    },
    async sourcesUnder(prefix) {
      const rows = await rowsOf(
        db,
        sql<{ source_id: string }>`SELECT source_id FROM ${documents}
          WHERE organization_id = ${organizationId} AND ${startsWith('source_id', prefix)}
          ORDER BY ${inByteOrder('source_id')}`,
      );
      return rows.map((row) => row.source_id);
    },
    async search(query, options = {}) {
      const limit = searchLimit(options);
      // Twice the limit: what the de-duplication of identical chunk texts drops is replaced.
      return toSearchHits(await search(db, organizationId, query, limit * 2), limit);
    },
    async findByLink(link) {
      const rows = await rowsOf(
        db,
        sql<SearchHitRow>`
         SELECT ${hitColumns}, 0 AS score
           FROM ${documents} d JOIN ${chunks} c ON c.document_id = d.id
          WHERE d.organization_id = ${organizationId} AND d.link = ${link} ORDER BY c.ordinal`,
      );
      return toSearchHits(rows);
    },
    async counts() {
      const [found] = await rowsOf(
        db,
        sql<{ documents: number; chunks: number }>`SELECT
          (SELECT count(*) FROM ${documents} WHERE organization_id = ${organizationId}) AS documents,
          (SELECT count(*) FROM ${chunks} c JOIN ${documents} d ON d.id = c.document_id
            WHERE d.organization_id = ${organizationId}) AS chunks`,
      );
      return { documents: Number(found?.documents ?? 0), chunks: Number(found?.chunks ?? 0) };
    },
    async list(options = {}) {
      const rows = await rowsOf(
        db,
        sql<IndexedDocumentRow>`
         SELECT d.source_id, d.title, d.link, d.uploaded_by, d.indexed_at,
                (SELECT count(*) FROM ${chunks} c WHERE c.document_id = d.id) AS chunks
           FROM ${documents} d WHERE d.organization_id = ${organizationId}
            AND ${inByteOrder('d.source_id')} > ${options.after ?? ''}
          ORDER BY ${inByteOrder('d.source_id')} LIMIT ${listLimit(options)}`,
      );
      return rows.map(toIndexedDocumentInfo);
    },
    forOrganization: (view) => sqlDocumentIndex(target, maxChunkChars, view, false),
    async close() {
      if (ownsDatabase) await db.destroy();
    },
  };
}

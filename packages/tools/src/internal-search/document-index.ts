import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { ToolbusError } from '@toolbus/spec';
import { DEFAULT_ORGANIZATION_ID, loadDatabaseSync } from '@toolbus/storage';
import { migrateDocumentIndex } from './document-index-schema.ts';
import type {
  DocumentScope,
  DocumentSearchIndex,
  IndexedDocumentInfo,
  ListDocumentsOptions,
} from './document-search-index.ts';
import { toFtsTerms } from './fts-query.ts';
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
  /** BM25 score, higher is better. */
  readonly score: number;
  readonly updatedAt: string | undefined;
}

/** What `upsert` did. */
export type UpsertOutcome = 'added' | 'updated' | 'unchanged';

/** Options for {@link openDocumentIndex}. */
export interface OpenDocumentIndexOptions {
  /** SQLite file, or `:memory:`. */
  readonly path: string;
  readonly maxChunkChars?: number;
}

/**
 * The embedded search index: documents cut into chunks, in SQLite FTS5 with BM25 ranking (title weighted above
 * body), Porter stemming and Unicode folding. Identical chunks (same text) are stored once per document and
 * de-duplicated in results. Each document belongs to one organisation: this object reads and writes the default
 * organisation's, {@link DocumentIndex.forOrganization} another's.
 */
export class DocumentIndex implements DocumentSearchIndex {
  readonly #db: DatabaseSync;
  readonly #maxChunkChars: number;
  readonly #statements: Record<string, StatementSync>;
  readonly #scope: DocumentScope = { organizationId: DEFAULT_ORGANIZATION_ID };

  constructor(options: OpenDocumentIndexOptions) {
    if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
    this.#db = new (loadDatabaseSync())(options.path);
    this.#maxChunkChars = options.maxChunkChars ?? 1200;
    this.#db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
    migrateDocumentIndex(this.#db);
    this.#db.exec('PRAGMA foreign_keys = ON;');
    this.#statements = {
      findDocument: this.#db.prepare(
        'SELECT id, content_hash FROM documents WHERE organization_id = ? AND source_id = ?',
      ),
      insertDocument: this.#db.prepare(
        `INSERT INTO documents (organization_id, source_id, title, link, content_hash, updated_at, indexed_at,
           uploaded_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      updateDocument: this.#db.prepare(
        `UPDATE documents SET title = ?, link = ?, content_hash = ?, updated_at = ?, indexed_at = ?,
           uploaded_by = COALESCE(?, uploaded_by) WHERE id = ?`,
      ),
      deleteChunks: this.#db.prepare('DELETE FROM chunks WHERE document_id = ?'),
      deleteDocument: this.#db.prepare('DELETE FROM documents WHERE id = ?'),
      insertChunk: this.#db.prepare(
        'INSERT INTO chunks (document_id, ordinal, title, content, content_hash) VALUES (?, ?, ?, ?, ?)',
      ),
      search: this.#db.prepare(
        `SELECT c.id AS chunk_id, d.source_id, d.title, d.link, c.ordinal, c.content, c.content_hash,
                d.updated_at, -bm25(chunks_fts, 4.0, 1.0) AS score
           FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN documents d ON d.id = c.document_id
          WHERE chunks_fts MATCH ? AND d.organization_id = ? ORDER BY score DESC LIMIT ?`,
      ),
      byLink: this.#db.prepare(
        `SELECT c.id AS chunk_id, d.source_id, d.title, d.link, c.ordinal, c.content, c.content_hash,
                d.updated_at, 0 AS score
           FROM documents d JOIN chunks c ON c.document_id = d.id
          WHERE d.organization_id = ? AND d.link = ? ORDER BY c.ordinal`,
      ),
      sourcesUnder: this.#db.prepare(
        'SELECT source_id FROM documents WHERE organization_id = ? AND source_id >= ? AND source_id < ?',
      ),
      list: this.#db.prepare(
        `SELECT d.source_id, d.title, d.link, d.uploaded_by, d.indexed_at,
                (SELECT count(*) FROM chunks c WHERE c.document_id = d.id) AS chunks
           FROM documents d WHERE d.organization_id = ? AND d.source_id > ? ORDER BY d.source_id LIMIT ?`,
      ),
      termFrequency: this.#db.prepare(
        'SELECT count(*) AS hits FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?)',
      ),
      allChunks: this.#db.prepare('SELECT count(*) AS chunks FROM chunks'),
      counts: this.#db.prepare(
        `SELECT (SELECT count(*) FROM documents WHERE organization_id = ?) AS documents,
                (SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.document_id
                  WHERE d.organization_id = ?) AS chunks`,
      ),
    };
  }

  /** Adds or replaces a document; skipped when its content hash is unchanged. */
  upsert(document: IndexableDocument): UpsertOutcome {
    return this.#upsert(this.#scope, document);
  }

  /** The content hash a source was indexed with, if it is indexed: lets callers skip reading unchanged files. */
  hashOf(sourceId: string): string | undefined {
    return this.#hashOf(this.#scope, sourceId);
  }

  /** Removes a document and its chunks. */
  remove(sourceId: string): boolean {
    return this.#remove(this.#scope, sourceId);
  }

  /** Source ids that start with `prefix` (e.g. every file under an indexed folder). */
  sourcesUnder(prefix: string): string[] {
    return this.#sourcesUnder(this.#scope, prefix);
  }

  /** The best chunks for a query, by BM25; identical chunk texts appear once. */
  search(query: string, options: { readonly limit?: number } = {}): SearchHit[] {
    return this.#search(this.#scope, query, options);
  }

  /** The chunks of the document whose link is `link` (open_url looks here before fetching). */
  findByLink(link: string): SearchHit[] {
    return this.#findByLink(this.#scope, link);
  }

  /** How many documents and chunks the index holds. */
  counts(): { documents: number; chunks: number } {
    return this.#counts(this.#scope);
  }

  /** The documents, by source id. */
  list(options: ListDocumentsOptions = {}): IndexedDocumentInfo[] {
    return this.#list(this.#scope, options);
  }

  /** The same index as one organisation's documents (closing the view leaves this index open). */
  forOrganization(scope: DocumentScope): DocumentSearchIndex & {
    batch<T>(body: () => T): T;
  } {
    return {
      upsert: (document) => this.#upsert(scope, document),
      hashOf: (sourceId) => this.#hashOf(scope, sourceId),
      remove: (sourceId) => this.#remove(scope, sourceId),
      sourcesUnder: (prefix) => this.#sourcesUnder(scope, prefix),
      search: (query, options = {}) => this.#search(scope, query, options),
      findByLink: (link) => this.#findByLink(scope, link),
      counts: () => this.#counts(scope),
      list: (options = {}) => this.#list(scope, options),
      forOrganization: (next) => this.forOrganization(next),
      batch: (body) => this.batch(body),
      close: () => {},
    };
  }

  /** Runs several upserts in one transaction (much faster for bulk indexing). */
  batch<T>(body: () => T): T {
    return this.#transaction(body);
  }

  close(): void {
    this.#db.close();
  }

  #upsert(scope: DocumentScope, document: IndexableDocument): UpsertOutcome {
    const contentHash = documentHash(document);
    const existing = this.#statements.findDocument?.get(scope.organizationId, document.sourceId) as
      | { id: number; content_hash: string }
      | undefined;
    if (existing?.content_hash === contentHash) return 'unchanged';
    const now = new Date().toISOString();
    const chunks = distinctChunks(document.text, this.#maxChunkChars);
    const uploadedBy = scope.uploadedBy ?? null;
    // The columns an insert and an update both write, in the order both statements take them.
    const written = [
      document.title,
      document.link ?? null,
      contentHash,
      document.updatedAt ?? null,
      now,
      uploadedBy,
    ];
    this.#transaction(() => {
      let documentId: number;
      if (existing) {
        this.#run('deleteChunks', existing.id);
        this.#run('updateDocument', ...written, existing.id);
        documentId = existing.id;
      } else {
        const inserted = this.#run('insertDocument', scope.organizationId, document.sourceId, ...written);
        documentId = Number(inserted.lastInsertRowid);
      }
      for (const chunk of chunks) {
        this.#run('insertChunk', documentId, chunk.ordinal, document.title, chunk.content, chunk.contentHash);
      }
    });
    return existing ? 'updated' : 'added';
  }

  #hashOf(scope: DocumentScope, sourceId: string): string | undefined {
    return (
      this.#statements.findDocument?.get(scope.organizationId, sourceId) as
        | { content_hash: string }
        | undefined
    )?.content_hash;
  }

  #remove(scope: DocumentScope, sourceId: string): boolean {
    const existing = this.#statements.findDocument?.get(scope.organizationId, sourceId) as
      | { id: number }
      | undefined;
    if (!existing) return false;
    this.#transaction(() => {
      this.#run('deleteChunks', existing.id);
      this.#run('deleteDocument', existing.id);
    });
    return true;
  }

  #sourcesUnder(scope: DocumentScope, prefix: string): string[] {
    const rows = this.#statements.sourcesUnder?.all(scope.organizationId, prefix, `${prefix}\u{10ffff}`) as {
      source_id: string;
    }[];
    return rows.map((row) => row.source_id);
  }

  #search(scope: DocumentScope, query: string, options: { readonly limit?: number }): SearchHit[] {
    const match = this.#selectiveMatch(toFtsTerms(query));
    if (!match) return [];
    const limit = searchLimit(options);
    const rows = this.#statements.search?.all(
      match,
      scope.organizationId,
      limit * 2,
    ) as unknown as SearchHitRow[];
    return toSearchHits(rows, limit);
  }

  /**
   * The OR query of the terms that are selective. A term in a large share of all chunks ("the", "and") adds
   * almost nothing to BM25 ranking but makes SQLite score most of the index, so it is left out unless every
   * term is that common. Counting stops at the threshold, so the check is cheap even for the most common terms.
   * The shares are of the whole index (they only choose terms; no other organisation's text is returned).
   */
  #selectiveMatch(terms: readonly string[]): string | undefined {
    if (terms.length <= 1) return terms[0];
    const all = Number((this.#statements.allChunks?.get() as { chunks: number } | undefined)?.chunks ?? 0);
    const threshold = Math.max(1000, Math.floor(all * 0.02));
    const selective = terms.filter((term) => {
      const row = this.#statements.termFrequency?.get(term, threshold) as { hits: number } | undefined;
      return (row?.hits ?? 0) < threshold;
    });
    return (selective.length ? selective : terms).join(' OR ');
  }

  #findByLink(scope: DocumentScope, link: string): SearchHit[] {
    return toSearchHits(
      this.#statements.byLink?.all(scope.organizationId, link) as unknown as SearchHitRow[],
    );
  }

  #counts(scope: DocumentScope): { documents: number; chunks: number } {
    const row = this.#statements.counts?.get(scope.organizationId, scope.organizationId) as {
      documents: number;
      chunks: number;
    };
    return { documents: Number(row.documents), chunks: Number(row.chunks) };
  }

  #list(scope: DocumentScope, options: ListDocumentsOptions): IndexedDocumentInfo[] {
    const rows = this.#statements.list?.all(scope.organizationId, options.after ?? '', listLimit(options));
    return (rows as unknown as IndexedDocumentRow[]).map(toIndexedDocumentInfo);
  }

  #depth = 0;
  #transaction<T>(body: () => T): T {
    if (this.#depth > 0) return body();
    this.#db.exec('BEGIN');
    this.#depth += 1;
    try {
      const result = body();
      this.#db.exec('COMMIT');
      return result;
    } catch (error) {
      this.#db.exec('ROLLBACK');
      throw error;
    } finally {
      this.#depth -= 1;
    }
  }

  #run(name: string, ...values: (string | number | null)[]) {
    const statement = this.#statements[name];
    if (!statement)
      throw new ToolbusError({ code: 'index_statement_missing', message: `No statement ${name}.` });
    return statement.run(...values);
  }
}

/** Opens (creating if needed) the search index at `path`. */
export function openDocumentIndex(options: OpenDocumentIndexOptions): DocumentIndex {
  return new DocumentIndex(options);
}

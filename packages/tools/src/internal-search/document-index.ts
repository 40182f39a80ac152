import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { ToolbusError } from '@toolbus/spec';
import { loadDatabaseSync } from '@toolbus/storage';
import { chunkText } from './chunk-text.ts';
import type { DocumentSearchIndex } from './document-search-index.ts';
import { toFtsTerms } from './fts-query.ts';

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

const schemaVersion = 1;

/**
 * The embedded search index: documents cut into chunks, in SQLite FTS5 with BM25 ranking (title weighted above
 * body), Porter stemming and Unicode folding. Identical chunks (same text) are stored once per document and
 * de-duplicated in results.
 */
export class DocumentIndex implements DocumentSearchIndex {
  readonly #db: DatabaseSync;
  readonly #maxChunkChars: number;
  readonly #statements: Record<string, StatementSync>;

  constructor(options: OpenDocumentIndexOptions) {
    if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
    this.#db = new (loadDatabaseSync())(options.path);
    this.#maxChunkChars = options.maxChunkChars ?? 1200;
    this.#db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;');
    migrate(this.#db);
    this.#statements = {
      findDocument: this.#db.prepare('SELECT id, content_hash FROM documents WHERE source_id = ?'),
      insertDocument: this.#db.prepare(
        'INSERT INTO documents (source_id, title, link, content_hash, updated_at, indexed_at) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      updateDocument: this.#db.prepare(
        'UPDATE documents SET title = ?, link = ?, content_hash = ?, updated_at = ?, indexed_at = ? WHERE id = ?',
      ),
      deleteChunks: this.#db.prepare('DELETE FROM chunks WHERE document_id = ?'),
      deleteDocument: this.#db.prepare('DELETE FROM documents WHERE id = ?'),
      insertChunk: this.#db.prepare(
        'INSERT INTO chunks (document_id, ordinal, title, content, content_hash) VALUES (?, ?, ?, ?, ?)',
      ),
      search: this.#db.prepare(
        `SELECT c.id AS chunk_id, d.source_id, d.title, d.link, c.ordinal, c.content, c.content_hash,
                d.updated_at, bm25(chunks_fts, 4.0, 1.0) AS rank
           FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN documents d ON d.id = c.document_id
          WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?`,
      ),
      byLink: this.#db.prepare(
        `SELECT c.id AS chunk_id, d.source_id, d.title, d.link, c.ordinal, c.content, c.content_hash,
                d.updated_at, 0 AS rank
           FROM documents d JOIN chunks c ON c.document_id = d.id WHERE d.link = ? ORDER BY c.ordinal`,
      ),
      sourcesUnder: this.#db.prepare(
        'SELECT source_id FROM documents WHERE source_id >= ? AND source_id < ?',
      ),
      termFrequency: this.#db.prepare(
        'SELECT count(*) AS hits FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?)',
      ),
      counts: this.#db.prepare(
        'SELECT (SELECT count(*) FROM documents) AS documents, (SELECT count(*) FROM chunks) AS chunks',
      ),
    };
  }

  /** Adds or replaces a document; skipped when its content hash is unchanged. */
  upsert(document: IndexableDocument): UpsertOutcome {
    const contentHash = document.contentHash ?? sha256(document.text);
    const existing = this.#statements.findDocument?.get(document.sourceId) as
      | { id: number; content_hash: string }
      | undefined;
    if (existing?.content_hash === contentHash) return 'unchanged';
    const now = new Date().toISOString();
    const chunks = chunkText(document.text, { maxChars: this.#maxChunkChars });
    this.#transaction(() => {
      let documentId: number;
      if (existing) {
        this.#run('deleteChunks', existing.id);
        this.#run(
          'updateDocument',
          document.title,
          document.link ?? null,
          contentHash,
          document.updatedAt ?? null,
          now,
          existing.id,
        );
        documentId = existing.id;
      } else {
        const inserted = this.#run(
          'insertDocument',
          document.sourceId,
          document.title,
          document.link ?? null,
          contentHash,
          document.updatedAt ?? null,
          now,
        );
        documentId = Number(inserted.lastInsertRowid);
      }
      const seen = new Set<string>();
      chunks.forEach((chunk, ordinal) => {
        const chunkHash = sha256(chunk);
        if (seen.has(chunkHash)) return;
        seen.add(chunkHash);
        this.#run('insertChunk', documentId, ordinal, document.title, chunk, chunkHash);
      });
    });
    return existing ? 'updated' : 'added';
  }

  /** The content hash a source was indexed with, if it is indexed: lets callers skip reading unchanged files. */
  hashOf(sourceId: string): string | undefined {
    return (this.#statements.findDocument?.get(sourceId) as { content_hash: string } | undefined)
      ?.content_hash;
  }

  /** Removes a document and its chunks. */
  remove(sourceId: string): boolean {
    const existing = this.#statements.findDocument?.get(sourceId) as { id: number } | undefined;
    if (!existing) return false;
    this.#transaction(() => {
      this.#run('deleteChunks', existing.id);
      this.#run('deleteDocument', existing.id);
    });
    return true;
  }

  /** Source ids that start with `prefix` (e.g. every file under an indexed folder). */
  sourcesUnder(prefix: string): string[] {
    const rows = this.#statements.sourcesUnder?.all(prefix, `${prefix}\u{10ffff}`) as { source_id: string }[];
    return rows.map((row) => row.source_id);
  }

  /** The best chunks for a query, by BM25; identical chunk texts appear once. */
  search(query: string, options: { readonly limit?: number } = {}): SearchHit[] {
    const match = this.#selectiveMatch(toFtsTerms(query));
    if (!match) return [];
    const limit = Math.min(Math.max(1, options.limit ?? 10), 200);
    const rows = this.#statements.search?.all(match, limit * 2) as unknown as Row[];
    return dedupe(rows).slice(0, limit);
  }

  /**
   * The OR query of the terms that are selective. A term in a large share of all chunks ("the", "and") adds
   * almost nothing to BM25 ranking but makes SQLite score most of the index, so it is left out unless every
   * term is that common. Counting stops at the threshold, so the check is cheap even for the most common terms.
   */
  #selectiveMatch(terms: readonly string[]): string | undefined {
    if (terms.length <= 1) return terms[0];
    const threshold = Math.max(1000, Math.floor(this.counts().chunks * 0.02));
    const selective = terms.filter((term) => {
      const row = this.#statements.termFrequency?.get(term, threshold) as { hits: number } | undefined;
      return (row?.hits ?? 0) < threshold;
    });
    return (selective.length ? selective : terms).join(' OR ');
  }

  /** The chunks of the document whose link is `link` (open_url looks here before fetching). */
  findByLink(link: string): SearchHit[] {
    return dedupe(this.#statements.byLink?.all(link) as unknown as Row[]);
  }

  /** How many documents and chunks the index holds. */
  counts(): { documents: number; chunks: number } {
    const row = this.#statements.counts?.get() as { documents: number; chunks: number };
    return { documents: Number(row.documents), chunks: Number(row.chunks) };
  }

  /** Runs several upserts in one transaction (much faster for bulk indexing). */
  batch<T>(body: () => T): T {
    return this.#transaction(body);
  }

  close(): void {
    this.#db.close();
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

interface Row {
  chunk_id: number;
  source_id: string;
  title: string;
  link: string | null;
  ordinal: number;
  content: string;
  content_hash: string;
  updated_at: string | null;
  rank: number;
}

function dedupe(rows: readonly Row[]): SearchHit[] {
  const seen = new Set<string>();
  const hits: SearchHit[] = [];
  for (const row of rows) {
    if (seen.has(row.content_hash)) continue;
    seen.add(row.content_hash);
    hits.push({
      chunkId: row.chunk_id,
      sourceId: row.source_id,
      title: row.title,
      link: row.link ?? undefined,
      ordinal: row.ordinal,
      content: row.content,
      score: -row.rank,
      updatedAt: row.updated_at ?? undefined,
    });
  }
  return hits;
}

function migrate(db: DatabaseSync): void {
  const version = (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
  if (version > schemaVersion) {
    throw new ToolbusError({
      code: 'index_schema_too_new',
      message: `The search index was written by a newer toolbus (schema ${version}; this one knows ${schemaVersion}).`,
    });
  }
  if (version === schemaVersion) return;
  db.exec(`
    BEGIN;
    CREATE TABLE documents (
      id INTEGER PRIMARY KEY,
      source_id TEXT NOT NULL UNIQUE,
      title TEXT NOT NULL,
      link TEXT,
      content_hash TEXT NOT NULL,
      updated_at TEXT,
      indexed_at TEXT NOT NULL
    );
    CREATE INDEX documents_link ON documents(link);
    CREATE TABLE chunks (
      id INTEGER PRIMARY KEY,
      document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
      ordinal INTEGER NOT NULL,
      title TEXT NOT NULL,
      content TEXT NOT NULL,
      content_hash TEXT NOT NULL
    );
    CREATE INDEX chunks_document ON chunks(document_id);
    CREATE VIRTUAL TABLE chunks_fts USING fts5(
      title, content, content='chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER chunks_after_insert AFTER INSERT ON chunks BEGIN
      INSERT INTO chunks_fts(rowid, title, content) VALUES (new.id, new.title, new.content);
    END;
    CREATE TRIGGER chunks_after_delete AFTER DELETE ON chunks BEGIN
      INSERT INTO chunks_fts(chunks_fts, rowid, title, content) VALUES ('delete', old.id, old.title, old.content);
    END;
    PRAGMA user_version = ${schemaVersion};
    COMMIT;
  `);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Opens (creating if needed) the search index at `path`. */
export function openDocumentIndex(options: OpenDocumentIndexOptions): DocumentIndex {
  return new DocumentIndex(options);
}

import type { IndexableDocument, SearchHit, UpsertOutcome } from './document-index.ts';

type MaybePromise<Value> = Value | Promise<Value>;

/**
 * A document index as internal_search, open_url and the indexer use it. The embedded SQLite index
 * ({@link DocumentIndex}) answers synchronously; a server index (PostgreSQL full-text search) answers with
 * promises; callers `await` either.
 */
export interface DocumentSearchIndex {
  /** Adds or replaces a document; skipped when its content hash is unchanged. */
  upsert(document: IndexableDocument): MaybePromise<UpsertOutcome>;
  /** The content hash a source was indexed with, if it is indexed. */
  hashOf(sourceId: string): MaybePromise<string | undefined>;
  /** Removes a document and its chunks. */
  remove(sourceId: string): MaybePromise<boolean>;
  /** Source ids that start with `prefix`. */
  sourcesUnder(prefix: string): MaybePromise<readonly string[]>;
  /** The best chunks for a query, best first; identical chunk texts appear once. */
  search(query: string, options?: { readonly limit?: number }): MaybePromise<readonly SearchHit[]>;
  /** The chunks of the document whose link is `link`, in order. */
  findByLink(link: string): MaybePromise<readonly SearchHit[]>;
  /** How many documents and chunks the index holds. */
  counts(): MaybePromise<{ documents: number; chunks: number }>;
  close(): MaybePromise<void>;
}

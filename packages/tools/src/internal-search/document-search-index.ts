import type { IndexableDocument, SearchHit, UpsertOutcome } from './document-index.ts';

type MaybePromise<Value> = Value | Promise<Value>;

/**
 * Whose documents a view of the index reads and writes: one organisation's. What is indexed through the view is
 * that organisation's, and `uploadedBy` (when given) is recorded as who indexed it.
 */
export interface DocumentScope {
  readonly organizationId: string;
  /** The user indexing through this view. */
  readonly uploadedBy?: string;
}

/** A document as the index lists it (its text left out). */
export interface IndexedDocumentInfo {
  readonly sourceId: string;
  readonly title: string;
  readonly link: string | undefined;
  /** Who indexed it last, when it was indexed through a view that named them. */
  readonly uploadedBy: string | undefined;
  readonly indexedAt: string;
  readonly chunks: number;
}

/** Options of {@link DocumentSearchIndex.list}. */
export interface ListDocumentsOptions {
  /** At most this many (default 100, at most 1,000). */
  readonly limit?: number;
  /** Only source ids after this one (the last of the previous page). */
  readonly after?: string;
}

/**
 * A document index as internal_search, open_url and the indexer use it. The embedded SQLite index
 * ({@link DocumentIndex}) answers synchronously; a server index (PostgreSQL full-text search) answers with
 * promises; callers `await` either. Every document belongs to one organisation: an index as opened reads and
 * writes the default organisation's (a single-user deployment's own), and {@link DocumentSearchIndex.forOrganization}
 * gives the view of another, which never sees, finds, counts or removes a document of any other.
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
  /** The documents, by source id. */
  list(options?: ListDocumentsOptions): MaybePromise<readonly IndexedDocumentInfo[]>;
  /** The same index as one organisation's documents (closing a view leaves the index open). */
  forOrganization(scope: DocumentScope): DocumentSearchIndex;
  close(): MaybePromise<void>;
}

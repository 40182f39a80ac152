import { createHash } from 'node:crypto';
import { chunkText } from './chunk-text.ts';
import type { IndexableDocument, SearchHit } from './document-index.ts';
import type { IndexedDocumentInfo, ListDocumentsOptions } from './document-search-index.ts';

// What the document index stores and reads back, whatever its database (document-index.ts).

/** A chunk of a document as an index stores it. */
export interface IndexedChunk {
  /** Its place in the document (a chunk repeated earlier in the document is left out, so there may be gaps). */
  readonly ordinal: number;
  readonly content: string;
  readonly contentHash: string;
}

/** The hash a document is indexed under: the caller's (of the source's bytes), else its text's. */
export function documentHash(document: IndexableDocument): string {
  return document.contentHash ?? sha256(document.text);
}

/**
 * A document's text as the chunks an index stores: each distinct text once (a repeated boilerplate paragraph is
 * stored and found once per document).
 */
export function distinctChunks(text: string, maxChars: number): IndexedChunk[] {
  const seen = new Set<string>();
  const chunks: IndexedChunk[] = [];
  chunkText(text, { maxChars }).forEach((content, ordinal) => {
    const contentHash = sha256(content);
    if (seen.has(contentHash)) return;
    seen.add(contentHash);
    chunks.push({ ordinal, content, contentHash });
  });
  return chunks;
}

/** A chunk read back with its document, as both indexes select it. */
export interface SearchHitRow {
  readonly chunk_id: number;
  readonly source_id: string;
  readonly title: string;
  readonly link: string | null;
  readonly ordinal: number;
  readonly content: string;
  readonly content_hash: string;
  readonly updated_at: string | null;
  /** Higher is better. */
  readonly score: number;
}

/** How many hits a search returns (default 10, at most 200). */
export function searchLimit(options: { readonly limit?: number }): number {
  return Math.min(Math.max(1, options.limit ?? 10), 200);
}

/**
 * Rows as hits, best first, each chunk text once: the same text in several documents (a licence, a footer) would
 * otherwise fill the results. A search reads twice its limit, so what the de-duplication drops is replaced.
 */
export function toSearchHits(rows: readonly SearchHitRow[], limit = rows.length): SearchHit[] {
  const seen = new Set<string>();
  const hits: SearchHit[] = [];
  for (const row of rows) {
    if (hits.length === limit) break;
    if (seen.has(row.content_hash)) continue;
    seen.add(row.content_hash);
    hits.push({
      chunkId: row.chunk_id,
      sourceId: row.source_id,
      title: row.title,
      link: row.link ?? undefined,
      ordinal: row.ordinal,
      content: row.content,
      score: row.score,
      updatedAt: row.updated_at ?? undefined,
    });
  }
  return hits;
}

/** A document as both indexes list it. */
export interface IndexedDocumentRow {
  readonly source_id: string;
  readonly title: string;
  readonly link: string | null;
  readonly uploaded_by: string | null;
  /** ISO 8601. */
  readonly indexed_at: string;
  readonly chunks: number;
}

/** How many documents a page of the list holds (default 100, at most 1,000). */
export function listLimit(options: ListDocumentsOptions): number {
  return Math.min(Math.max(1, options.limit ?? 100), 1000);
}

/** A listed row as the document's info. */
export function toIndexedDocumentInfo(row: IndexedDocumentRow): IndexedDocumentInfo {
  return {
    sourceId: row.source_id,
    title: row.title,
    link: row.link ?? undefined,
    uploadedBy: row.uploaded_by ?? undefined,
    indexedAt: row.indexed_at,
    chunks: row.chunks,
  };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

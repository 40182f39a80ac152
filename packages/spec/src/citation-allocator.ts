import type { CitedDocument, SearchDocument } from './search-document.ts';

/**
 * Hands out citation numbers for one turn. Citeable tools call `assign` when they have documents: documents
 * already cited in the turn keep their number, new ones get one contiguous block. Numbers are dense and unique
 * across parallel tools, with no per-tool cap: parallel tools never collide, and readers see no gaps (see
 * docs/decisions/differences-from-onyx.md).
 */
export interface CitationAllocator {
  /** Numbers the given documents (in order; duplicates by id share one number). */
  assign(documents: readonly SearchDocument[]): CitedDocument[];
  /** The number a document id already has in this turn, if any. */
  numberOf(documentId: string): number | undefined;
  /** The next number that would be handed out. */
  readonly nextNumber: number;
}

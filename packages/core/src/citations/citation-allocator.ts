import type { CitationAllocator, CitedDocument, SearchDocument } from '@toolbus/spec';
import { ToolbusError } from '@toolbus/spec';

/** Options for {@link createCitationAllocator}. */
export interface CitationAllocatorOptions {
  /** Documents already cited in the conversation (numbers stay, and new ones start after the highest). */
  readonly known?: Iterable<CitedDocument>;
  /** The first number to hand out when nothing is known (e.g. after project files numbered 1..n). Default 1. */
  readonly startAt?: number;
}

/** A per-call view of the turn's allocator: it records what the call was given and can be fenced. */
export interface CitationAllocatorView extends CitationAllocator {
  /** The documents this view numbered, by number. */
  readonly assigned: ReadonlyMap<number, CitedDocument>;
  /** After this, `assign` throws: a call whose result is already recorded cannot take numbers. */
  fence(): void;
}

/** The turn's allocator: one per turn, shared by every tool of every cycle. */
export interface TurnCitationAllocator extends CitationAllocator {
  /** Every numbered document of the turn, by number. */
  readonly mapping: ReadonlyMap<number, CitedDocument>;
  /** A view for one tool call. */
  view(): CitationAllocatorView;
}

/**
 * Creates the turn's citation allocator. Tools take contiguous blocks when they have documents, so numbers are
 * dense and unique across parallel tools with no per-tool cap. No lock is needed: JavaScript runs each `assign`
 * to completion. A document id seen before in the turn keeps its number (open_url after web_search).
 */
export function createCitationAllocator(options: CitationAllocatorOptions = {}): TurnCitationAllocator {
  const byNumber = new Map<number, CitedDocument>();
  const byId = new Map<string, number>();
  let next = options.startAt ?? 1;
  for (const document of options.known ?? []) {
    byNumber.set(document.citationNumber, document);
    byId.set(document.id, document.citationNumber);
    if (document.citationNumber >= next) next = document.citationNumber + 1;
  }

  function assign(
    documents: readonly SearchDocument[],
    record?: Map<number, CitedDocument>,
  ): CitedDocument[] {
    const fresh = new Map<string, number>();
    let freshCount = 0;
    for (const document of documents) {
      if (!byId.has(document.id) && !fresh.has(document.id)) {
        fresh.set(document.id, freshCount);
        freshCount += 1;
      }
    }
    const blockStart = next;
    next += freshCount;
    const cited: CitedDocument[] = [];
    for (const document of documents) {
      const existing = byId.get(document.id);
      const citationNumber = existing ?? blockStart + (fresh.get(document.id) as number);
      const citedDocument: CitedDocument = { ...document, citationNumber };
      if (existing === undefined) {
        byId.set(document.id, citationNumber);
        byNumber.set(citationNumber, citedDocument);
      }
      record?.set(citationNumber, byNumber.get(citationNumber) ?? citedDocument);
      cited.push(citedDocument);
    }
    return cited;
  }

  const allocator: TurnCitationAllocator = {
    assign: (documents) => assign(documents),
    numberOf: (documentId) => byId.get(documentId),
    get nextNumber() {
      return next;
    },
    get mapping() {
      return byNumber;
    },
    view() {
      return new AllocatorView(assign, byId, () => next);
    },
  };
  return allocator;
}

// A class rather than closures: one view is made per tool call. The record map is only made on first use.
class AllocatorView implements CitationAllocatorView {
  readonly #assign: (
    documents: readonly SearchDocument[],
    record?: Map<number, CitedDocument>,
  ) => CitedDocument[];
  readonly #byId: ReadonlyMap<string, number>;
  readonly #next: () => number;
  #assigned: Map<number, CitedDocument> | undefined;
  #fenced = false;

  constructor(
    assign: (documents: readonly SearchDocument[], record?: Map<number, CitedDocument>) => CitedDocument[],
    byId: ReadonlyMap<string, number>,
    next: () => number,
  ) {
    this.#assign = assign;
    this.#byId = byId;
    this.#next = next;
  }

  get assigned(): ReadonlyMap<number, CitedDocument> {
    return this.#assigned ?? emptyMap;
  }

  get nextNumber(): number {
    return this.#next();
  }

  assign(documents: readonly SearchDocument[]): CitedDocument[] {
    if (this.#fenced) {
      throw new ToolbusError({
        code: 'citation_allocator_fenced',
        message: 'This tool call already has its result recorded; it cannot take citation numbers.',
      });
    }
    this.#assigned ??= new Map();
    return this.#assign(documents, this.#assigned);
  }

  numberOf(documentId: string): number | undefined {
    return this.#byId.get(documentId);
  }

  fence(): void {
    this.#fenced = true;
  }
}

const emptyMap: ReadonlyMap<number, CitedDocument> = new Map();

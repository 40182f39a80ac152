import type { CitedDocument } from '@toolbus/spec';

/** Options for {@link collapseCitations}. */
export interface CollapseCitationsOptions {
  /**
   * Documents already numbered (earlier in the chat, or by reports collapsed before this one): a document found
   * here by id keeps its number, and new numbers start after the highest one.
   */
  readonly existing?: ReadonlyMap<number, CitedDocument>;
  /** The first new number when `existing` is empty. Default 1. */
  readonly startAt?: number;
}

/** The result of {@link collapseCitations}. */
export interface CollapsedCitations {
  readonly text: string;
  /** `existing` ∪ the documents this text cited, by their (new) number. */
  readonly mapping: ReadonlyMap<number, CitedDocument>;
  /** Only the documents this text cited, by their new number, in order of first appearance. */
  readonly cited: ReadonlyMap<number, CitedDocument>;
}

// `[1]`, `[1, 2]`, `[1,2]`, `[[1]]`, the full-width `【1】` / `【【1】】` and `［1］` / `［［1］］` forms.
const markerPattern = /(\[\[|【【|［［|\[|【|［)\s*(\d+(?:\s*,\s*\d+)*)\s*(\]\]|】】|］］|\]|】|］)/g;
const closingOf: Record<string, string> = {
  '[': ']',
  '[[': ']]',
  '【': '】',
  '【【': '】】',
  '［': '］',
  '［［': '］］',
};

/**
 * Renumbers the citation markers of a text (a research agent's report, written with per-agent numbers) into
 * one dense numbering, in order of first appearance, and returns the combined mapping. Every marker form is
 * rewritten keeping its own bracket style; lists are re-joined with ", " and duplicates inside a list merged. A
 * document already in `existing` keeps its number, one cited twice under different numbers gets one. Numbers
 * absent from `mapping` are dropped (left in place they could collide with renumbered ones); a marker left
 * with no known number disappears. Text inside code fences is left alone.
 */
export function collapseCitations(
  text: string,
  mapping: ReadonlyMap<number, CitedDocument>,
  options: CollapseCitationsOptions = {},
): CollapsedCitations {
  const combined = new Map<number, CitedDocument>(options.existing ?? []);
  const byDocument = new Map<string, number>();
  let next = options.startAt ?? 1;
  for (const [number, document] of combined) {
    byDocument.set(document.id, number);
    if (number >= next) next = number + 1;
  }
  const renumbered = new Map<number, number>();
  const cited = new Map<number, CitedDocument>();

  const rewrite = (segment: string) =>
    segment.replace(markerPattern, (marker, open: string, list: string, close: string) => {
      if (closingOf[open] !== close) return marker;
      const numbers: number[] = [];
      for (const part of list.split(',')) {
        const old = Number(part.trim());
        const document = mapping.get(old);
        if (!document) continue;
        let fresh = renumbered.get(old) ?? byDocument.get(document.id);
        if (fresh === undefined) {
          fresh = next;
          next += 1;
          combined.set(fresh, { ...document, citationNumber: fresh });
          byDocument.set(document.id, fresh);
        }
        renumbered.set(old, fresh);
        const entry = combined.get(fresh);
        if (entry && !cited.has(fresh)) cited.set(fresh, entry);
        if (!numbers.includes(fresh)) numbers.push(fresh);
      }
      return numbers.length ? `${open}${numbers.join(', ')}${close}` : '';
    });

  // Odd pieces of a split on ``` are inside code fences: markers there are code, not citations.
  const output = text
    .split('```')
    .map((segment, index) => (index % 2 === 0 ? rewrite(segment) : segment))
    .join('```');
  return { text: output, mapping: combined, cited };
}

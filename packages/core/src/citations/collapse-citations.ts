import type { CitedDocument } from '@toolbus/spec';

/** The result of {@link collapseCitations}. */
export interface CollapsedCitations {
  readonly text: string;
  /** New number → document, dense from `startAt`. */
  readonly mapping: ReadonlyMap<number, CitedDocument>;
}

const markerPattern = /\[(\d+(?:\s*,\s*\d+)*)\]/g;

/**
 * Renumbers the citation markers of a text densely, in order of first appearance, and returns the matching
 * mapping: how reports written with sparse or per-agent numbers become one clean numbering (seed §7.3). Numbers
 * absent from `mapping` are removed from the text; a marker left with no known number disappears.
 */
export function collapseCitations(
  text: string,
  mapping: ReadonlyMap<number, CitedDocument>,
  options: { readonly startAt?: number } = {},
): CollapsedCitations {
  const renumbered = new Map<number, number>();
  const byDocument = new Map<string, number>();
  const collapsed = new Map<number, CitedDocument>();
  let next = options.startAt ?? 1;
  const output = text.replace(markerPattern, (_marker, list: string) => {
    const numbers: number[] = [];
    for (const part of list.split(',')) {
      const old = Number(part.trim());
      const document = mapping.get(old);
      if (!document) continue;
      let fresh = renumbered.get(old) ?? byDocument.get(document.id);
      if (fresh === undefined) {
        fresh = next;
        next += 1;
        collapsed.set(fresh, { ...document, citationNumber: fresh });
        byDocument.set(document.id, fresh);
      }
      renumbered.set(old, fresh);
      if (!numbers.includes(fresh)) numbers.push(fresh);
    }
    return numbers.length ? `[${numbers.join(', ')}]` : '';
  });
  return { text: output, mapping: collapsed };
}

import { CitationMarkerScanner } from '@toolbus/core';
import type { CitedDocument } from '@toolbus/spec';

/** The documents of `mapping` that `text` cites, by number, in order of first citation (code fences skipped). */
export function citedDocumentsIn(
  text: string,
  mapping: ReadonlyMap<number, CitedDocument>,
): Map<number, CitedDocument> {
  const cited = new Map<number, CitedDocument>();
  for (const number of new CitationMarkerScanner().process(`${text}\n`)) {
    const document = mapping.get(number);
    if (document) cited.set(number, document);
  }
  return cited;
}

/** Options for {@link chunkText}. */
export interface ChunkTextOptions {
  /** Longest chunk, in characters. Default 1,200 (a few paragraphs: enough context, still precise). */
  readonly maxChars?: number;
  /** Characters of the previous chunk repeated at the start of the next, so a sentence cut in two is findable. */
  readonly overlapChars?: number;
}

/**
 * Cuts a document's text into chunks for the index, preferring paragraph, then sentence, then word boundaries.
 * Linear in the text length. Blank input gives no chunks.
 */
export function chunkText(text: string, options: ChunkTextOptions = {}): string[] {
  const maxChars = Math.max(100, options.maxChars ?? 1200);
  const overlap = Math.min(Math.max(0, options.overlapChars ?? 120), Math.floor(maxChars / 4));
  const normalised = text
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t]+\n/g, '\n')
    .trim();
  const chunks: string[] = [];
  let start = 0;
  while (start < normalised.length) {
    let end = Math.min(normalised.length, start + maxChars);
    if (end < normalised.length) end = bestBreak(normalised, start, end);
    const chunk = normalised.slice(start, end).trim();
    if (chunk) chunks.push(chunk);
    if (end >= normalised.length) break;
    const next = end - overlap;
    start = next > start ? adjustToWordStart(normalised, next, end) : end;
  }
  return chunks;
}

function bestBreak(text: string, start: number, end: number): number {
  const minimum = start + Math.floor((end - start) / 2);
  for (const separator of ['\n\n', '\n', '. ', '? ', '! ', '; ', ', ', ' ']) {
    const at = text.lastIndexOf(separator, end - separator.length);
    if (at >= minimum) return at + separator.length;
  }
  return end;
}

function adjustToWordStart(text: string, position: number, limit: number): number {
  let index = position;
  while (index < limit && !/\s/.test(text[index] as string)) index += 1;
  return index < limit ? index + 1 : position;
}

import { createTextScan, type TextScan } from './text-scan.ts';

/** A block `open … close` found in text. Without a close, the block runs to the next open or the end. */
export interface DelimitedBlock {
  readonly start: number;
  readonly contentStart: number;
  readonly contentEnd: number;
  readonly end: number;
}

/** Options for {@link findDelimitedBlocks}. */
export interface FindDelimitedBlocksOptions {
  readonly open: string;
  /** Closing markers; the earliest one found ends the block. Empty: every block runs to the next open. */
  readonly closes: readonly string[];
}

/**
 * Finds `open … close` blocks, case-insensitively (ASCII), left to right, in linear time: every marker is
 * searched forward only, and a missing close is searched for once. Markers come from `scan` (one shared
 * pass over the text).
 */
export function findDelimitedBlocks(
  text: string,
  options: FindDelimitedBlocksOptions,
  scan: TextScan = createTextScan(text),
): readonly DelimitedBlock[] {
  // Dialects that share a marker (`<tool_call>`, `[TOOL_CALLS]`) share its blocks.
  return scan.memo(`blocks\u0000${options.open}\u0000${options.closes.join('\u0000')}`, () =>
    findBlocks(text, options, scan),
  );
}

function findBlocks(text: string, options: FindDelimitedBlocksOptions, scan: TextScan): DelimitedBlock[] {
  const openSearch = scan.search(options.open);
  const closeSearches = options.closes.map((close) => ({
    search: scan.search(close),
    length: close.length,
  }));
  const blocks: DelimitedBlock[] = [];
  let position = 0;
  while (position < text.length) {
    const start = openSearch.next(position);
    if (start < 0) break;
    const contentStart = start + options.open.length;
    let contentEnd = -1;
    let end = -1;
    for (const close of closeSearches) {
      const hit = close.search.next(contentStart);
      if (hit >= 0 && (contentEnd < 0 || hit < contentEnd)) {
        contentEnd = hit;
        end = hit + close.length;
      }
    }
    const nextOpen = openSearch.next(contentStart);
    if (contentEnd < 0 || (nextOpen >= 0 && nextOpen < contentEnd)) {
      contentEnd = nextOpen >= 0 ? nextOpen : text.length;
      end = contentEnd;
    }
    blocks.push({ start, contentStart, contentEnd, end });
    position = Math.max(end, contentStart);
  }
  return blocks;
}

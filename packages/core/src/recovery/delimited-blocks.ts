import type { ToolDefinition } from '@toolbus/spec';
import { createTextScan, lowerBound, type TextScan } from './text-scan.ts';

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

/**
 * The blocks of {@link findDelimitedBlocks} that contain the name of a declared tool: the only ones that can hold
 * a call of a dialect that names its tool. Found from the names' positions (each name looks up the block it sits
 * in), so text full of markup that names no declared tool costs nothing per block. Every block's extent depends
 * only on its own opening marker (a block ends at its close or at the next opening, so no opening lies inside an
 * earlier block), which is what lets a block be found from one name.
 */
export function findBlocksNamingTools(
  text: string,
  options: FindDelimitedBlocksOptions,
  scan: TextScan,
  toolDefs: readonly ToolDefinition[],
): readonly DelimitedBlock[] {
  const names = scan.toolNamePositions(toolDefs);
  if (names === undefined) return findDelimitedBlocks(text, options, scan);
  const opens = scan.positions(options.open);
  const blocks: DelimitedBlock[] = [];
  let lastOpen = -1;
  for (const name of names) {
    const before = lowerBound(opens, name - options.open.length + 1) - 1;
    if (before < 0 || opens[before]! <= lastOpen) continue;
    const block = blockAt(opens[before]!, options, scan, opens, text.length);
    if (name >= block.contentEnd) continue;
    blocks.push(block);
    lastOpen = block.start;
  }
  return blocks;
}

function blockAt(
  start: number,
  options: FindDelimitedBlocksOptions,
  scan: TextScan,
  opens: readonly number[],
  length: number,
): DelimitedBlock {
  const contentStart = start + options.open.length;
  let contentEnd = -1;
  let end = -1;
  for (const close of options.closes) {
    const closes = scan.positions(close);
    const hit = closes[lowerBound(closes, contentStart)];
    if (hit !== undefined && (contentEnd < 0 || hit < contentEnd)) {
      contentEnd = hit;
      end = hit + close.length;
    }
  }
  const nextOpen = opens[lowerBound(opens, contentStart)];
  if (contentEnd < 0 || (nextOpen !== undefined && nextOpen < contentEnd)) {
    contentEnd = nextOpen ?? length;
    end = contentEnd;
  }
  return { start, contentStart, contentEnd, end };
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

import type { ToolDefinition } from '@toolbus/spec';
import { createTextScan, lowerBound, lowerBoundFrom, type TextScan } from './text-scan.ts';

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
  // Found once per text and marker, whichever parser asks first (dialects that share a marker share them), and
  // kept per name list: another tool list finds other names.
  const byNames = scan.memo(
    'blocks naming tools',
    () =>
      new WeakMap<Int32Array, Map<string, { readonly limit: number; readonly blocks: DelimitedBlock[] }>>(),
  );
  let byMarker = byNames.get(names);
  if (byMarker === undefined) {
    byMarker = new Map();
    byNames.set(names, byMarker);
  }
  // A block holding a name where the rest of the text is claimed ends past that name, so it overlaps recovered
  // text and its parser passes over it: only the names before that point are looked up. The claimed part only
  // grows, so blocks found for an earlier, later-starting claim still serve (the extra ones are passed over).
  const limit = scan.recovered.claimedFrom(text.length);
  const key = `${options.open}\u0000${options.closes.join('\u0000')}`;
  let found = byMarker.get(key);
  if (found === undefined || found.limit < limit) {
    const kept = limit < text.length ? names.subarray(0, lowerBound(names, limit)) : names;
    found = { limit, blocks: blocksAroundNames(kept, options, scan, text.length) };
    byMarker.set(key, found);
  }
  return found.blocks;
}

// One merge of the names with the opening markers, every list read forward by a galloping cursor: names and the
// blocks' starts both ascend, so the cost follows the names and the blocks kept, not the markers passed over.
function blocksAroundNames(
  names: Int32Array,
  options: FindDelimitedBlocksOptions,
  scan: TextScan,
  length: number,
): DelimitedBlock[] {
  const opens = scan.positions(options.open);
  const openLength = options.open.length;
  const closes = options.closes.map((close) => ({
    list: scan.positions(close),
    length: close.length,
    at: 0,
  }));
  const blocks: DelimitedBlock[] = [];
  // The last opening marker ending at or before the current name, and the last one decided (its block was kept,
  // or ended before a name, so before every later one: a block's extent depends only on its own marker).
  let open = -1;
  let decided = -1;
  let nextOpen = 0;
  for (let index = 0; index < names.length; index++) {
    const name = names[index]!;
    open = lowerBoundFrom(opens, name - openLength + 1, Math.max(open, 0)) - 1;
    if (open <= decided) continue;
    decided = open;
    const start = opens[open]!;
    const contentStart = start + openLength;
    let contentEnd = -1;
    let end = -1;
    for (const close of closes) {
      close.at = lowerBoundFrom(close.list, contentStart, close.at);
      const hit = close.list[close.at];
      if (hit !== undefined && (contentEnd < 0 || hit < contentEnd)) {
        contentEnd = hit;
        end = hit + close.length;
      }
    }
    nextOpen = lowerBoundFrom(opens, contentStart, nextOpen);
    const following = opens[nextOpen];
    if (contentEnd < 0 || (following !== undefined && following < contentEnd)) {
      contentEnd = following ?? length;
      end = contentEnd;
    }
    if (name >= contentEnd) continue;
    blocks.push({ start, contentStart, contentEnd, end });
  }
  return blocks;
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

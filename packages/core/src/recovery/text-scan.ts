import type { ToolDefinition } from '@toolbus/spec';
import { type ForwardSearch, lowerCaseAscii } from './text-search.ts';
import { indexToolDefinitions, type ToolSchemaIndex } from './tool-schema-index.ts';

/**
 * One text read once for every dialect parser: its ASCII-lower-cased form, and the positions of every needle
 * the parsers look for (their markers, tags and separators), found in a single pass over the text instead of
 * one search per parser and needle. Parsers then work only from those positions. A needle nobody declared is
 * still found (one search of its own, remembered), so declaring needles only ever saves time.
 */
export interface TextScan {
  readonly text: string;
  /** `text` with ASCII letters lower-cased (every index the same). */
  readonly lower: string;
  /** Ascending start indexes of `needle` (ASCII case ignored; exact case with `caseSensitive`). */
  positions(needle: string, caseSensitive?: boolean): readonly number[];
  /** Whether `needle` occurs (ASCII case ignored). */
  has(needle: string): boolean;
  /** A forward search over {@link TextScan.positions}. */
  search(needle: string, caseSensitive?: boolean): ForwardSearch;
  /** The tool index for `toolDefs`, built once per scan. */
  tools(toolDefs: readonly ToolDefinition[]): ToolSchemaIndex;
  /** Memoised results of block finders keyed by a string (dialects that share a marker share its blocks). */
  memo<T>(key: string, compute: () => T): T;
}

/** Scans `text` once for all of `needles` (see {@link TextScan}). */
export function createTextScan(text: string, needles: Iterable<string> = []): TextScan {
  const lower = lowerCaseAscii(text);
  const found = findAll(lower, needles);
  const exact = new Map<string, readonly number[]>();
  const memos = new Map<string, unknown>();
  let toolIndex: { defs: readonly ToolDefinition[]; index: ToolSchemaIndex } | undefined;
  const positions = (needle: string, caseSensitive = false): readonly number[] => {
    const key = lowerCaseAscii(needle);
    let list = found.get(key);
    if (list === undefined) {
      list = indexAll(lower, key);
      found.set(key, list);
    }
    if (!caseSensitive || key === needle) return list;
    let kept = exact.get(needle);
    if (kept === undefined) {
      kept = list.filter((at) => text.startsWith(needle, at));
      exact.set(needle, kept);
    }
    return kept;
  };
  return {
    text,
    lower,
    positions,
    has: (needle) => positions(needle).length > 0,
    search(needle, caseSensitive = false) {
      const list = positions(needle, caseSensitive);
      let cursor = 0;
      return {
        length: needle.length,
        next(from) {
          // Forward only, like every search here: amortised linear over all calls.
          if (cursor > 0 && list[cursor - 1]! >= from) cursor = lowerBound(list, from);
          while (cursor < list.length && list[cursor]! < from) cursor++;
          return cursor < list.length ? list[cursor]! : -1;
        },
      };
    },
    tools(toolDefs) {
      if (toolIndex?.defs !== toolDefs) toolIndex = { defs: toolDefs, index: indexToolDefinitions(toolDefs) };
      return toolIndex.index;
    },
    memo<T>(key: string, compute: () => T): T {
      if (memos.has(key)) return memos.get(key) as T;
      const value = compute();
      memos.set(key, value);
      return value;
    },
  };
}

function lowerBound(list: readonly number[], value: number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (list[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

function indexAll(lower: string, needle: string): number[] {
  const list: number[] = [];
  if (needle.length === 0) return list;
  for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + 1)) list.push(at);
  return list;
}

/**
 * The needles that start with punctuation (markers and tags: `<…`, `[…`, `>>>`), all in one pass per first
 * character: a native search jumps from one `<` to the next, and a table of the needles' first two characters
 * picks the few worth comparing there. Needles that start with a letter are left to their own native search
 * (made only when a parser asks), which is faster than stopping at every letter.
 */
function findAll(lower: string, needles: Iterable<string>): Map<string, number[]> {
  const found = new Map<string, number[]>();
  // (first, second character) → bucket of needles; ASCII pairs in a flat table, others in a map.
  const buckets: Array<{ readonly needles: string[]; readonly thirds: number[]; readonly lists: number[][] }> =
    [];
  const asciiPairs = new Int32Array(128 * 128);
  const otherPairs = new Map<number, number>();
  const firstCharacters = new Set<string>();
  for (const raw of needles) {
    const needle = lowerCaseAscii(raw);
    if (needle.length < 2 || found.has(needle) || /^[\p{L}\p{N}]/u.test(needle)) continue;
    const list: number[] = [];
    found.set(needle, list);
    const first = needle.charCodeAt(0);
    const second = needle.charCodeAt(1);
    firstCharacters.add(needle[0]!);
    const ascii = first < 128 && second < 128;
    let bucket = ascii ? asciiPairs[first * 128 + second]! - 1 : (otherPairs.get(first * 65_536 + second) ?? -1);
    if (bucket < 0) {
      bucket = buckets.length;
      buckets.push({ needles: [], thirds: [], lists: [] });
      if (ascii) asciiPairs[first * 128 + second] = bucket + 1;
      else otherPairs.set(first * 65_536 + second, bucket);
    }
    buckets[bucket]!.needles.push(needle);
    // The third character rejects most needles of a crowded bucket (`<|…`) without a string comparison.
    buckets[bucket]!.thirds.push(needle.length > 2 ? needle.charCodeAt(2) : -1);
    buckets[bucket]!.lists.push(list);
  }
  for (const character of firstCharacters) {
    const first = character.charCodeAt(0);
    for (let index = lower.indexOf(character); index >= 0; index = lower.indexOf(character, index + 1)) {
      const second = lower.charCodeAt(index + 1);
      const bucket =
        first < 128 && second < 128
          ? asciiPairs[first * 128 + second]! - 1
          : (otherPairs.get(first * 65_536 + second) ?? -1);
      if (bucket < 0) continue;
      const { needles: candidates, thirds, lists } = buckets[bucket]!;
      const third = lower.charCodeAt(index + 2);
      for (let candidate = 0; candidate < candidates.length; candidate++) {
        const expected = thirds[candidate]!;
        if (expected >= 0 && expected !== third) continue;
        if (matchesAt(lower, candidates[candidate]!, index)) lists[candidate]!.push(index);
      }
    }
  }
  return found;
}

// `startsWith` with a position, written out: it is called at every marker-like spot of the text.
function matchesAt(text: string, needle: string, at: number): boolean {
  if (at + needle.length > text.length) return false;
  for (let offset = 2; offset < needle.length; offset++) {
    if (text.charCodeAt(at + offset) !== needle.charCodeAt(offset)) return false;
  }
  return true;
}

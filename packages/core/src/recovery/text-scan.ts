import type { ToolDefinition } from '@toolbus/spec';
import { escapeRegExp, type ForwardSearch, lowerCaseAscii } from './text-search.ts';
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
  /**
   * Whether a declared tool's name is written somewhere in `[from, to)` (exact case): a call block that names
   * no declared tool holds no call, so its body need not be read. With many tools the answer is always true
   * (finding every name would cost more than it saves).
   */
  mayNameTool(toolDefs: readonly ToolDefinition[], from: number, to: number): boolean;
  /** Ascending positions of the declared tools' names, or `undefined` when there are too many tools to look. */
  toolNamePositions(toolDefs: readonly ToolDefinition[]): Int32Array | undefined;
  /** Memoised results of block finders keyed by a string (dialects that share a marker share its blocks). */
  memo<T>(key: string, compute: () => T): T;
}

/** Scans `text` once for all of `needles` (see {@link TextScan}). */
export function createTextScan(text: string, needles: readonly string[] = []): TextScan {
  let lower: string | undefined;
  const found = findAll(text, needles);
  const exact = new Map<string, readonly number[]>();
  const memos = new Map<string, unknown>();
  let toolIndex: { defs: readonly ToolDefinition[]; index: ToolSchemaIndex } | undefined;
  let namePositions: { defs: readonly ToolDefinition[]; positions: Int32Array | undefined } | undefined;
  const positions = (needle: string, caseSensitive = false): readonly number[] => {
    const key = lowerCaseAscii(needle);
    let list = found.get(key);
    if (list === undefined) {
      list = indexAll(text, key);
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
  const toolsOf = (toolDefs: readonly ToolDefinition[]): ToolSchemaIndex => {
    if (toolIndex?.defs !== toolDefs) toolIndex = { defs: toolDefs, index: indexToolDefinitions(toolDefs) };
    return toolIndex.index;
  };
  const namesOf = (toolDefs: readonly ToolDefinition[]): Int32Array | undefined => {
    if (namePositions?.defs !== toolDefs)
      namePositions = { defs: toolDefs, positions: toolNamePositions(text, toolsOf(toolDefs)) };
    return namePositions.positions;
  };
  return {
    text,
    get lower() {
      lower ??= lowerCaseAscii(text);
      return lower;
    },
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
    tools: toolsOf,
    toolNamePositions: namesOf,
    mayNameTool(toolDefs, from, to) {
      const list = namesOf(toolDefs);
      if (list === undefined) return true;
      const first = lowerBound(list, from);
      return first < list.length && list[first]! < to;
    },
    memo<T>(key: string, compute: () => T): T {
      if (memos.has(key)) return memos.get(key) as T;
      const value = compute();
      memos.set(key, value);
      return value;
    },
  };
}

// Up to this many tools, their names are found in the text (one native search each) to rule out blocks.
const maximumGatedTools = 32;

function toolNamePositions(text: string, tools: ToolSchemaIndex): Int32Array | undefined {
  if (tools.size > maximumGatedTools) return undefined;
  const all: number[] = [];
  for (const name of tools.keys()) {
    if (name.length === 0) return undefined;
    for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) all.push(at);
  }
  return Int32Array.from(all.sort((left, right) => left - right));
}

/** The index of the first entry `>= value` in an ascending list. */
export function lowerBound(list: ArrayLike<number>, value: number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (list[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

// A needle nobody declared: its own search, ASCII case ignored like the shared pass.
function indexAll(text: string, needle: string): number[] {
  const list: number[] = [];
  if (needle.length === 0) return list;
  const pattern = new RegExp(escapeRegExp(needle), 'gi');
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    list.push(match.index);
    pattern.lastIndex = match.index + 1;
  }
  return list;
}

/** The needles that start with punctuation, compiled once per needle list into one regular expression. */
interface CompiledNeedles {
  /** Every needle, longest first (so a match is the longest needle at its position), ASCII case ignored. */
  readonly pattern: RegExp;
  readonly needles: readonly string[];
  /** Needle indexes by {@link matchKey} (a few characters and the length: no string made per match). */
  readonly byKey: ReadonlyMap<number, readonly number[]>;
  /** For each needle, the other needles that are proper prefixes of it (they match at the same position). */
  readonly prefixes: readonly (readonly number[])[];
}

const compiledNeedles = new WeakMap<readonly string[], CompiledNeedles>();

function compileNeedles(needles: readonly string[]): CompiledNeedles {
  const cached = compiledNeedles.get(needles);
  if (cached) return cached;
  const kept = [
    ...new Set(needles.map(lowerCaseAscii).filter((needle) => needle.length >= 2 && !startsWithWord(needle))),
  ].sort((left, right) => right.length - left.length);
  const byKey = new Map<number, number[]>();
  kept.forEach((needle, index) => {
    const key = matchKey(needle, 0, needle.length);
    const list = byKey.get(key);
    if (list) list.push(index);
    else byKey.set(key, [index]);
  });
  const prefixes = kept.map((needle) =>
    kept.flatMap((other, index) => (other.length < needle.length && needle.startsWith(other) ? [index] : [])),
  );
  // Without the `u` flag, `i` folds ASCII letters only onto ASCII letters: the same matches as comparing
  // ASCII-lower-cased text, without lower-casing the text first.
  const compiled: CompiledNeedles = {
    pattern: new RegExp(kept.length > 0 ? kept.map(escapeRegExp).join('|') : '(?!)', 'gi'),
    needles: kept,
    byKey,
    prefixes,
  };
  compiledNeedles.set(needles, compiled);
  return compiled;
}

// A needle's identity from its length and three of its characters (ASCII case folded): equal for a match and
// the needle it matched; the needles that share a key are told apart by comparing strings.
function matchKey(text: string, at: number, length: number): number {
  return (
    (Math.min(length, 255) << 21) |
    (foldAt(text, at + 1) << 14) |
    (foldAt(text, at + length - 2) << 7) |
    foldAt(text, at + length - 1)
  );
}

function foldAt(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return (code >= 0x41 && code <= 0x5a ? code + 0x20 : code) & 0x7f;
}

function startsWithWord(needle: string): boolean {
  return /^[\p{L}\p{N}]/u.test(needle);
}

/**
 * Every needle that starts with punctuation (markers and tags: `<…`, `[…`, `>>>`) in one native pass: one
 * regular expression of all of them, longest first, restarted one character after each match so overlapping
 * needles are found too. Needles that start with a letter are left to their own search (made only when a
 * parser asks), which is faster than trying the alternatives at every letter.
 */
function findAll(text: string, needles: readonly string[]): Map<string, number[]> {
  const { pattern, needles: kept, byKey, prefixes } = compileNeedles(needles);
  const lists = kept.map((): number[] => []);
  if (kept.length === 0) return new Map();
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const length = match[0].length;
    const candidates = byKey.get(matchKey(text, match.index, length))!;
    let index = candidates[0]!;
    if (candidates.length > 1) {
      const written = lowerCaseAscii(match[0]);
      index = candidates.find((candidate) => kept[candidate] === written) ?? index;
    }
    lists[index]!.push(match.index);
    for (const prefix of prefixes[index]!) lists[prefix]!.push(match.index);
    pattern.lastIndex = match.index + 1;
  }
  const found = new Map<string, number[]>();
  kept.forEach((needle, index) => {
    found.set(needle, lists[index]!);
  });
  return found;
}

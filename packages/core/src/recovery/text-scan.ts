import type { ToolDefinition } from '@toolbus/spec';
import { RecoveredRanges } from './recovered-ranges.ts';
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
  /**
   * Whether some declared tool's name is written right after `marker` (exact case) before the text claimed by
   * higher-priority dialects (see {@link RecoveredRanges.claimedFrom}), or may be (too many tools to look): a
   * dialect that writes the name right after its marker has no call to find otherwise, and is not read.
   */
  mayNameToolAfter(toolDefs: readonly ToolDefinition[], marker: string): boolean;
  /**
   * The calls recovered so far from this text by higher-priority parsers (filled by the extractor, empty for a
   * scan of one's own): a parser may pass over a call overlapping them unread, since it would be dropped.
   */
  readonly recovered: RecoveredRanges;
  /** Memoised results of block finders keyed by a string (dialects that share a marker share its blocks). */
  memo<T>(key: string, compute: () => T): T;
}

/** Scans `text` once for all of `needles` (see {@link TextScan}). */
export function createTextScan(text: string, needles: readonly string[] = []): TextScan {
  let lower: string | undefined;
  const compiled = compileNeedles(needles);
  const found = findAll(text, compiled);
  // A needle the pass looked for and did not find is in no list: it is absent, not to be searched again.
  const scanned = compiled.scanned;
  const exact = new Map<string, readonly number[]>();
  const memos = new Map<string, unknown>();
  const recovered = new RecoveredRanges();
  let toolIndex: { defs: readonly ToolDefinition[]; index: ToolSchemaIndex } | undefined;
  let namePositions: { defs: readonly ToolDefinition[]; positions: Int32Array | undefined } | undefined;
  const positions = (needle: string, caseSensitive = false): readonly number[] => {
    const key = lowerCaseAscii(needle);
    let list = found.get(key);
    if (list === undefined) {
      list = scanned.has(key) ? noPositions : indexAll(text, key);
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
    recovered,
    has: (needle) => positions(needle).length > 0,
    search(needle, caseSensitive = false) {
      // Found on first use: a parser sets up the searches it may need, and a needle it never reaches (the
      // parameters of a call that names no declared tool) costs no pass of its own.
      let list: readonly number[] | undefined;
      let cursor = 0;
      return {
        length: needle.length,
        next(from) {
          list ??= positions(needle, caseSensitive);
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
    mayNameToolAfter(toolDefs, marker) {
      const list = namesOf(toolDefs);
      if (list === undefined) return true;
      const last = marker.charCodeAt(marker.length - 1);
      const limit = recovered.claimedFrom(text.length);
      for (let index = 0; index < list.length && list[index]! < limit; index++) {
        const at = list[index]!;
        if (text.charCodeAt(at - 1) === last && text.startsWith(marker, at - marker.length)) return true;
      }
      return false;
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
  const names = [...tools.keys()];
  if (names.some((name) => name.length === 0)) return undefined;
  // Where no name is written before the first one (often: near the end, or nowhere), one native pass for all
  // names finds it, and each name is searched from there only.
  let first = 0;
  if (names.length > 1) {
    const anyName = new RegExp(names.map(escapeRegExp).join('|'), 'g');
    if (!anyName.test(text)) return new Int32Array(0);
    first = anyName.lastIndex - Math.max(...names.map((name) => name.length));
  }
  const all: number[] = [];
  let written = 0;
  for (const name of names) {
    const before = all.length;
    for (let at = text.indexOf(name, first); at >= 0; at = text.indexOf(name, at + 1)) all.push(at);
    if (all.length > before) written++;
  }
  // Each name's positions ascend already; a typed array sorts numerically in native code (no comparator).
  return written > 1 ? Int32Array.from(all).sort() : Int32Array.from(all);
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

/**
 * {@link lowerBound} for a cursor moving forward: the first index `>= from` whose entry is `>= value`, found by
 * galloping from `from` (cost logarithmic in the distance moved, so a cursor walked over a whole list costs
 * about one pass however its steps fall). Every entry before `from` must be `< value`.
 */
export function lowerBoundFrom(list: ArrayLike<number>, value: number, from: number): number {
  let low = from;
  let step = 1;
  let high = from;
  while (high < list.length && list[high]! < value) {
    low = high + 1;
    high = from + step;
    step *= 2;
  }
  if (high > list.length) high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (list[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

// A needle nobody declared: its own search, ASCII case ignored like the shared pass. `test` builds no match
// object (needles like `invoke` are found thousands of times in hostile text); a match is as long as the needle.
function indexAll(text: string, needle: string): number[] {
  const list: number[] = [];
  if (needle.length === 0) return list;
  // The needle's longest run of characters without case is found by an exact native search, much faster than
  // the case-blind one: where it is missing (``` of `action: ``` ` in text with no fence) so is the needle.
  const uncased = longestUncasedRun(needle);
  if (uncased.length > 0 && !text.includes(uncased)) return list;
  const pattern = new RegExp(escapeRegExp(needle), 'gi');
  while (pattern.test(text)) {
    const at = pattern.lastIndex - needle.length;
    list.push(at);
    pattern.lastIndex = at + 1;
  }
  return list;
}

function longestUncasedRun(needle: string): string {
  let best = '';
  let start = 0;
  for (let at = 0; at <= needle.length; at++) {
    const character = needle[at];
    if (character !== undefined && character.toLowerCase() === character.toUpperCase()) continue;
    if (at - start > best.length) best = needle.slice(start, at);
    start = at + 1;
  }
  return best;
}

/**
 * The needles that start with punctuation, compiled once per needle list into a trie whose transitions are a
 * flat table: one row per trie node, one column per character the needles use (ASCII letters of both cases share
 * a column), so following a character is two typed-array reads.
 */
interface CompiledNeedles {
  readonly needles: readonly string[];
  /** The distinct first characters of the needles, each with its trie node. */
  readonly roots: readonly { readonly first: string; readonly node: number }[];
  /**
   * The needles without ASCII letters that share their first character with no other needle (`>>>`): left to
   * a native search for the whole needle when asked for, so a common first character costs no walk per
   * occurrence.
   */
  readonly alone: readonly number[];
  /** The needles the one pass finds (all but `alone`): one that is not in its result does not occur. */
  readonly scanned: ReadonlySet<string>;
  /** The column of each UTF-16 code unit (0: used by no needle, so no needle continues with it). */
  readonly columns: Uint8Array;
  /**
   * `width` columns per node, the node's row starting at `node * width`: twice the child's row start, plus 1
   * when a needle ends at the child; 0 for none (node 0 is never a child, and column 0, the characters no needle
   * uses, never has one). Following a character is one read and a shift (no multiply on the dependent chain).
   */
  readonly steps: Int32Array;
  readonly width: number;
  /** For each node's row start, the index (in `needles`) of the needle that ends at that node, or -1. */
  readonly endingAtRow: Int32Array;
}

const noPositions: readonly number[] = Object.freeze([]);

const compiledNeedles = new WeakMap<readonly string[], CompiledNeedles>();

function compileNeedles(needles: readonly string[]): CompiledNeedles {
  const cached = compiledNeedles.get(needles);
  if (cached) return cached;
  const kept = [
    ...new Set(needles.map(lowerCaseAscii).filter((needle) => needle.length >= 2 && !startsWithWord(needle))),
  ];
  const columns = new Uint8Array(0x10000);
  let width = 1;
  for (const needle of kept) {
    for (let at = 1; at < needle.length; at++) {
      const code = needle.charCodeAt(at);
      if (columns[code] !== 0) continue;
      // 255 distinct characters at most; past that a needle is still found by its own search.
      if (width === 255) break;
      columns[code] = width;
      if (code >= 0x61 && code <= 0x7a) columns[code - 0x20] = width;
      width++;
    }
  }
  const children: number[][] = [[]];
  const ends: number[] = [-1];
  const rootNodes = new Map<string, number>();
  const usable = kept.filter((needle) => {
    for (let at = 1; at < needle.length; at++) if (columns[needle.charCodeAt(at)] === 0) return false;
    return true;
  });
  const newNode = () => {
    children.push([]);
    ends.push(-1);
    return children.length - 1;
  };
  usable.forEach((needle, index) => {
    let root = rootNodes.get(needle[0]!);
    if (root === undefined) {
      root = newNode();
      rootNodes.set(needle[0]!, root);
    }
    let node: number = root;
    for (let at = 1; at < needle.length; at++) {
      const column = columns[needle.charCodeAt(at)]!;
      let child = children[node]![column];
      if (child === undefined) {
        child = newNode();
        children[node]![column] = child;
      }
      node = child;
    }
    ends[node] = index;
  });
  const alone = usable.flatMap((needle, index) =>
    !/[a-z]/.test(needle) && usable.every((other, at) => at === index || other[0] !== needle[0])
      ? [index]
      : [],
  );
  const steps = new Int32Array(children.length * width);
  const endingAtRow = new Int32Array(children.length * width).fill(-1);
  children.forEach((row, node) => {
    endingAtRow[node * width] = ends[node]!;
    row.forEach((child, column) => {
      if (child !== undefined) steps[node * width + column] = child * width * 2 + (ends[child]! >= 0 ? 1 : 0);
    });
  });
  const compiled: CompiledNeedles = {
    needles: usable,
    // A first character is never a letter (those needles are searched on their own), so it is not folded: one
    // native `indexOf` per first character finds every place a needle can start.
    roots: [...rootNodes]
      .filter(([first]) => !alone.some((index) => usable[index]![0] === first))
      .map(([first, node]) => ({ first, node })),
    alone,
    scanned: new Set(usable.filter((_, index) => !alone.includes(index))),
    columns,
    steps,
    width,
    endingAtRow,
  };
  compiledNeedles.set(needles, compiled);
  return compiled;
}

function startsWithWord(needle: string): boolean {
  return /^[\p{L}\p{N}]/u.test(needle);
}

/**
 * Every needle that starts with punctuation (markers and tags: `<…`, `[…`, `>>>`) in one pass per distinct
 * first character: a native `indexOf` finds each place the character stands, and a walk down the trie from
 * there finds every needle written at that place (overlapping needles and needles that are prefixes of others
 * included). Needles that start with a letter are left to their own search (made only when a parser asks).
 */
function findAll(text: string, compiled: CompiledNeedles): Map<string, readonly number[]> {
  const found = new Map<string, readonly number[]>();
  const { needles: kept, roots } = compiled;
  if (kept.length === 0) return found;
  // A list only for a needle that occurs: most texts hold none of the ~140 markers, and a list and a map entry
  // for each was most of the pass's time and garbage for them. A needle searched on its own (`alone`) is never
  // walked to, so it is searched when first asked for (a parser may never ask, for text that names no declared
  // tool where the needle would have to stand).
  const lists: (number[] | undefined)[] = [];
  for (const { first, node } of roots) walkFrom(text, first, node, compiled, lists);
  for (let index = 0; index < lists.length; index++) {
    const list = lists[index];
    if (list !== undefined) found.set(kept[index]!, list);
  }
  return found;
}

// Its own function, so it is optimised as a whole (a loop optimised on its own was thrown away at every call).
function walkFrom(
  text: string,
  first: string,
  root: number,
  compiled: CompiledNeedles,
  lists: (number[] | undefined)[],
): void {
  const { columns, steps, width, endingAtRow } = compiled;
  const length = text.length;
  const rootRow = root * width;
  for (let at = text.indexOf(first); at >= 0; at = text.indexOf(first, at + 1)) {
    let row = rootRow;
    for (let index = at + 1; index < length; index++) {
      const step = steps[row + columns[text.charCodeAt(index)]!]!;
      if (step === 0) break;
      row = step >> 1;
      if ((step & 1) === 1) {
        const needle = endingAtRow[row]!;
        const list = lists[needle];
        if (list === undefined) lists[needle] = [at];
        else list.push(at);
      }
    }
  }
}

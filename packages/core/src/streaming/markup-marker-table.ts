import { functionsPrefix, skipWhitespaceBack } from '../recovery/text-search.ts';
import type { ToolCallMarkupMarker } from '../recovery/tool-call-markup-marker.ts';

// The markup stream filter's view of a marker list: each marker prepared for matching in place (lower-cased,
// closes listed, orphan closes added), and the tables that find the markers that may start at a character.

/** A marker as the filter matches it. */
export interface PreparedMarker {
  readonly open: string;
  /**
   * Hidden, nothing else: a closing marker met outside any block (the model forgot the opening one), or a
   * marker that stands alone (a channel header).
   */
  readonly alone: boolean;
  /** A closing marker met without its opening one: hidden where it opens a line, text after prose on its line. */
  readonly orphanClose: boolean;
  /** The block's content is reasoning (see {@link ToolCallMarkupMarker.reasoning}). */
  readonly reasoning: boolean;
  /** Counts only where it opens the answer (see {@link ToolCallMarkupMarker.opensAnswer}). */
  readonly opensAnswer: boolean;
  readonly closes: readonly string[];
  readonly requiresTagEnd: boolean;
  readonly maxCloseLength: number;
  /** The template ends the turn where the block closes (see {@link ToolCallMarkupMarker.endsTurn}). */
  readonly endsTurn: boolean;
  /** Opens a see-through wrapper of the answer (see {@link ToolCallMarkupMarker.wrapsAnswer}): hidden alone. */
  readonly wraps: boolean;
  /** Closes a see-through wrapper: hidden alone, and only while a wrapper the filter hid is open. */
  readonly closesWrapper: boolean;
  /**
   * Not markup: a word the caller watches (`functions.` of a namespaced call within a line). Met whole, it is
   * reported and shown; the text ending within it waits for the next chunk, as within a marker.
   */
  readonly watched: boolean;
}

/** The markers that start with one pair of characters. */
interface PrefixMarkers {
  readonly all: PreparedMarker[];
  /** Those of just the two characters. */
  readonly short: PreparedMarker[];
  /** Those of three or more by their third character, each list with the two-character ones. */
  readonly byThird: Map<number, PreparedMarker[]>;
}

/** A marker list's lookup tables, built once per list (see {@link markupMarkerTableOf}). */
export interface MarkupMarkerTable {
  readonly markers: readonly PreparedMarker[];
  /** Every spelling (lower and upper case) of every marker's first character. */
  readonly firstCharacters: readonly string[];
  /**
   * A character class of {@link firstCharacters} (global): one native search finds where a marker may start.
   * Shared by every filter of the list, so each use sets `lastIndex` first; a search never spans a call out.
   */
  readonly firstPattern: RegExp;
  /** The search also meets `{"` and a key's first letter, where a JSON call may open (see {@link callWatchingTableOf}). */
  readonly watchesBraces: boolean;
  /** Some marker counts only where it opens the answer (see {@link ToolCallMarkupMarker.opensAnswer}). */
  readonly hasOpeningMarker: boolean;
  /** By the codes of the first two (lower-case) characters, `first * 0x10000 + second`. */
  readonly byPrefix: ReadonlyMap<number, PrefixMarkers>;
  /** By the first (lower-case) character, for a candidate at the very end of the buffer. */
  readonly byFirst: ReadonlyMap<string, PreparedMarker[]>;
  readonly hasSingleCharacterMarker: boolean;
}

// A filter is made per model step (two or more per turn), nearly always with the same marker list: its tables
// are built once per list. They are never changed after they are built.
const preparedByList = new WeakMap<readonly ToolCallMarkupMarker[], MarkupMarkerTable>();

/** The tables of a marker list (cached per list). */
export function markupMarkerTableOf(list: readonly ToolCallMarkupMarker[]): MarkupMarkerTable {
  const cached = preparedByList.get(list);
  if (cached) return cached;
  const usable = list.filter((marker) => marker.open.length > 0);
  const opens = new Set(usable.map((marker) => lowerCaseAscii(marker.open)));
  // A wrapper's closes are tokens of their own, matched only while a wrapper is open (the opening hides alone).
  const wrapperCloses = new Set(
    usable
      .filter((marker) => marker.wrapsAnswer === true)
      .flatMap((marker) => marker.closes.map(lowerCaseAscii))
      .filter((close) => close.length > 0),
  );
  const orphanCloses = new Set(
    usable
      // A lone `</think>` ends thinking the template opened in the prompt: that text was shown, the tag stays.
      .filter((marker) => marker.opensAnswer !== true)
      .flatMap((marker) => marker.closes.map(lowerCaseAscii))
      .filter((close) => close.length > 1),
  );
  const markers: PreparedMarker[] = [
    ...usable.map((marker) => ({
      open: lowerCaseAscii(marker.open),
      alone: marker.token === true,
      orphanClose: false,
      reasoning: marker.reasoning === true,
      opensAnswer: marker.opensAnswer === true,
      closes:
        marker.wrapsAnswer === true
          ? []
          : marker.closes.filter((close) => close.length > 0).map(lowerCaseAscii),
      requiresTagEnd: marker.requiresTagEnd === true,
      maxCloseLength:
        marker.wrapsAnswer === true ? 0 : Math.max(0, ...marker.closes.map((close) => close.length)),
      endsTurn: marker.endsTurn === true,
      wraps: marker.wrapsAnswer === true,
      closesWrapper: false,
      watched: false,
    })),
    ...[...orphanCloses]
      .filter((close) => !opens.has(close))
      .map((close) => ({ ...inertMarker, open: close, alone: true, orphanClose: true })),
    ...[...wrapperCloses]
      .filter((close) => !opens.has(close) && !orphanCloses.has(close))
      .map((close) => ({ ...inertMarker, open: close, alone: true, closesWrapper: true })),
  ];
  const prepared = tablesOf(markers, '');
  preparedByList.set(list, prepared);
  return prepared;
}

/** The lookup tables of prepared markers, and one search for their first characters or `extra` (a pattern). */
function tablesOf(markers: readonly PreparedMarker[], extra: string): MarkupMarkerTable {
  const byFirst = new Map<string, PreparedMarker[]>();
  const byPrefix = new Map<number, PrefixMarkers>();
  for (const marker of markers) {
    addTo(byFirst, marker.open[0]!, marker);
    // A one-character marker is complete at its first character: file it under every possible second one
    // would be unbounded, so it is looked up by its first character alone (see #candidatesAt).
    if (marker.open.length < 2) continue;
    const key = marker.open.charCodeAt(0) * 0x10000 + marker.open.charCodeAt(1);
    let entry = byPrefix.get(key);
    if (entry === undefined) {
      entry = { all: [], short: [], byThird: new Map() };
      byPrefix.set(key, entry);
    }
    entry.all.push(marker);
    if (marker.open.length === 2) entry.short.push(marker);
  }
  for (const marker of markers) {
    if (marker.open.length < 3) continue;
    const entry = byPrefix.get(marker.open.charCodeAt(0) * 0x10000 + marker.open.charCodeAt(1))!;
    const third = marker.open.charCodeAt(2);
    let list = entry.byThird.get(third);
    if (list === undefined) {
      list = [...entry.short];
      entry.byThird.set(third, list);
    }
    list.push(marker);
  }
  const firstCharacters = spellings(markers.map((marker) => marker.open[0]!));
  const characters = firstCharacters.map(escapeClassCharacter).join('');
  const search = extra === '' ? `[${characters}]` : characters === '' ? extra : `[${characters}]|${extra}`;
  return {
    markers,
    firstCharacters,
    firstPattern: new RegExp(search, 'g'),
    watchesBraces: extra !== '',
    hasOpeningMarker: markers.some((marker) => marker.opensAnswer),
    byPrefix,
    byFirst,
    hasSingleCharacterMarker: markers.some((marker) => marker.open.length === 1),
  };
}

const callWatching = new WeakMap<MarkupMarkerTable, Map<string, MarkupMarkerTable>>();

/**
 * The answer filter's word that opens a namespaced call within a line of prose (`Sure. functions.get_weather(…)`),
 * watched by the markup filter's search, which meets its `f` anyway (`functools[`). Not `default_api.`: Gemini
 * writes it in a `tool_code` fence (read at its line's start), and its `d` would make every `d` of prose a match.
 */
export const watchedNamespace = functionsPrefix;

/**
 * The tables of a marker list whose one search also meets `{"` and one of `keyFirsts` (the answer filter's JSON
 * call within a line of prose, `{"name": …}`), and {@link watchedNamespace} as a watched word: a chunk of prose
 * without them costs nothing more, and a `{` of prose, code or data (`{ x }`, `{x}`, `{"status": …}`) is passed
 * over within the same native search. No marker may start with `{` (else the plain tables are used). Cached per
 * list and letters.
 */
export function callWatchingTableOf(
  list: readonly ToolCallMarkupMarker[],
  keyFirsts: string,
): MarkupMarkerTable {
  const table = markupMarkerTableOf(list);
  if (table.firstCharacters.includes('{') || keyFirsts === '') return table;
  let byLetters = callWatching.get(table);
  if (byLetters === undefined) {
    byLetters = new Map();
    callWatching.set(table, byLetters);
  }
  let watching = byLetters.get(keyFirsts);
  if (watching === undefined) {
    // Measured: `{` in the class, a lookahead, or `{"` alone cost a search of each brace (or `{"`) of prose.
    // Blanks may stand between the brace and the key (`{ "name"`, a pretty-printed `{\n  "name"`), and the key
    // may be quoted as a Python dict's is (`{'name'`).
    const brace = `\\{[ \\t\\r\\n]*["'][${[...keyFirsts].map(escapeClassCharacter).join('')}]`;
    const namespace: PreparedMarker = { ...inertMarker, open: watchedNamespace, watched: true };
    watching = tablesOf([...table.markers, namespace], brace);
    byLetters.set(keyFirsts, watching);
  }
  return watching;
}

/**
 * Where the `{` stands when the table's search last met `{"` (blanks may stand between) and a key's letter in
 * `buffer`, at `from` or after; else -1: a marker's first character (`{"<tool_call>` meets the `<`).
 */
export function braceMetAt(table: MarkupMarkerTable, buffer: string, from: number): number {
  if (!table.watchesBraces) return -1;
  const letter = table.firstPattern.lastIndex - 1;
  const code = buffer.charCodeAt(letter);
  const quote = buffer.charCodeAt(letter - 1);
  if (code < 0x61 || code > 0x7a || (quote !== 0x22 && quote !== 0x27)) return -1;
  const brace = skipWhitespaceBack(buffer, letter - 2, from);
  return brace >= from && buffer.charCodeAt(brace) === 0x7b ? brace : -1;
}

function spellings(characters: readonly string[]): string[] {
  const result = new Set<string>();
  for (const character of characters) {
    result.add(character);
    if (character >= 'a' && character <= 'z') result.add(character.toUpperCase());
  }
  return [...result];
}

// ASCII-only lower-casing of the markers themselves.
function lowerCaseAscii(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

function escapeClassCharacter(character: string): string {
  return /[\\\]^-]/.test(character) ? `\\${character}` : character;
}

/**
 * The markers that may start at `buffer[index]`: by the first character alone at the buffer's end, else by the
 * first two (the key is the two codes, so a lookup builds no string) and the third where the buffer has it.
 */
export function candidatesAt(
  table: MarkupMarkerTable,
  buffer: string,
  index: number,
): readonly PreparedMarker[] {
  const first = lowerCode(buffer.charCodeAt(index));
  if (index + 1 >= buffer.length) return table.byFirst.get(String.fromCharCode(first)) ?? noMarkers;
  const entry = table.byPrefix.get(first * 0x10000 + lowerCode(buffer.charCodeAt(index + 1)));
  let candidates = noMarkers;
  if (entry !== undefined) {
    // By the third character where the buffer has it: `</b>` in prose is then checked against no closing tag
    // instead of the twenty-odd that start with `</`.
    candidates =
      index + 2 < buffer.length
        ? (entry.byThird.get(lowerCode(buffer.charCodeAt(index + 2))) ?? entry.short)
        : entry.all;
  }
  if (!table.hasSingleCharacterMarker) return candidates;
  const byFirst = table.byFirst.get(String.fromCharCode(first)) ?? noMarkers;
  return [...byFirst.filter((marker) => marker.open.length === 1), ...candidates];
}

/** Whether `marker` starts at `buffer[index]`, may start there (the buffer ends first), or does not. */
export function matchAt(buffer: string, index: number, marker: PreparedMarker): 'full' | 'partial' | 'none' {
  const open = marker.open;
  const available = buffer.length - index;
  const compared = Math.min(available, open.length);
  for (let offset = 0; offset < compared; offset++) {
    if (lowerCode(buffer.charCodeAt(index + offset)) !== open.charCodeAt(offset)) return 'none';
  }
  if (available < open.length) return 'partial';
  if (!marker.requiresTagEnd) return 'full';
  if (available === open.length) return 'partial';
  const follower = buffer.charCodeAt(index + open.length);
  return follower === 0x3e || follower === 0x20 || follower === 0x0a || follower === 0x0d || follower === 0x09
    ? 'full'
    : 'none';
}

/** `indexOf` for a lower-case needle, matching ASCII letters in either case. */
export function indexOfIgnoringCase(haystack: string, needle: string, from: number): number {
  const firsts = spellings([needle[0]!]);
  let position = from;
  while (true) {
    let index = -1;
    for (const first of firsts) {
      const hit = haystack.indexOf(first, position);
      if (hit >= 0 && (index < 0 || hit < index)) index = hit;
    }
    if (index < 0 || index + needle.length > haystack.length) return -1;
    let matches = true;
    for (let offset = 1; offset < needle.length; offset++) {
      if (lowerCode(haystack.charCodeAt(index + offset)) !== needle.charCodeAt(offset)) {
        matches = false;
        break;
      }
    }
    if (matches) return index;
    position = index + 1;
  }
}

export const noMarkers: readonly PreparedMarker[] = [];

// A marker that does nothing of its own (every flag off, nothing closes it): what an orphan close and
// {@link pastTurnEnd} are built from, so that a new flag gets its "off" in one place.
const inertMarker: PreparedMarker = Object.freeze({
  open: '',
  alone: false,
  orphanClose: false,
  reasoning: false,
  opensAnswer: false,
  closes: [],
  requiresTagEnd: false,
  maxCloseLength: 0,
  endsTurn: false,
  wraps: false,
  closesWrapper: false,
  watched: false,
});

/**
 * What the filter is inside once a block that ends the model's turn has closed on a call: the rest of the
 * stream, hidden and not kept (see {@link ToolCallMarkupMarker.endsTurn}).
 */
export const pastTurnEnd: PreparedMarker = Object.freeze({ ...inertMarker });

function addTo(map: Map<string, PreparedMarker[]>, key: string, marker: PreparedMarker): void {
  const list = map.get(key);
  if (list) list.push(marker);
  else map.set(key, [marker]);
}

function lowerCode(code: number): number {
  return code >= 0x41 && code <= 0x5a ? code + 0x20 : code;
}

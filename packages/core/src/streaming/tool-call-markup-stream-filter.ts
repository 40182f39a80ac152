import { CodeSpanTracker } from '../recovery/code-span-tracker.ts';
import { isWhitespaceCode } from '../recovery/text-search.ts';
import { functionCallsMarker, type ToolCallMarkupMarker } from '../recovery/tool-call-markup-marker.ts';
import { defaultToolCallMarkupMarkers } from '../recovery/tool-call-parser-registry.ts';

interface PreparedMarker {
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
}

/** Options for {@link ToolCallMarkupStreamFilter}. */
export interface ToolCallMarkupStreamFilterOptions {
  /**
   * What to show for a markup block once it closes, given its raw text (markers included) and whether it opened
   * its line (nothing but whitespace before it there): by default nothing. The answer filter shows a block that
   * holds no call as written.
   */
  readonly release?: (block: string, opensLine: boolean) => string;
}

/**
 * Removes tool-call markup blocks from streamed text the user sees, whatever the chunking: a marker split
 * across chunks is still found, in any letter case. The markers default to those the registered dialect
 * parsers declare. A closing marker with no opening one is hidden too; a marker inside Markdown code (inline
 * `` `<tool_call>` `` or a fenced example) is a mention and stays. Only a possible marker prefix at the end of
 * the input is held back, and no decision is taken on a boundary not yet seen (a chunk ending right after
 * `<function_calls` waits for the next character). An unclosed block is dropped by `flush()`. The work per
 * call is proportional to the chunk (the held-back text is shorter than the longest marker): candidate
 * positions are found with native `indexOf` on the markers' first characters, and markers are compared
 * case-insensitively in place, without lower-casing the chunk. The raw text must be kept separately by the
 * caller for recovery. The content of a reasoning block (Harmony's analysis channel) is handed out by
 * {@link ToolCallMarkupStreamFilter.takeReasoning} instead.
 */
export class ToolCallMarkupStreamFilter {
  readonly #markers: readonly PreparedMarker[];
  /**
   * A character class of every spelling (lower and upper case) of every marker's first character: one native
   * search finds the next place a marker may start.
   */
  readonly #firstPattern: RegExp;
  /** Markers by their first two (lower-case) characters, so a `<` in prose is checked against few markers. */
  readonly #byPrefix: ReadonlyMap<string, PreparedMarker[]>;
  /** Markers by their first character, for a candidate at the very end of the buffer. */
  readonly #byFirst: ReadonlyMap<string, PreparedMarker[]>;
  readonly #hasSingleCharacterMarker: boolean;
  #pending = '';
  #inside: PreparedMarker | undefined;
  /** The raw text of the block being hidden, marker included (bounded), for {@link openBlock}. */
  #block = '';
  /** Inline code and fences in the text shown so far: markers inside code are mentions. */
  #code = new CodeSpanTracker();
  /** How far into the current buffer {@link #code} has read. */
  #codeAt = 0;
  readonly #release: ((block: string, opensLine: boolean) => string) | undefined;
  /** Reasoning read since the last {@link takeReasoning}. */
  #reasoning = '';
  /** Whether text other than whitespace has passed (then a marker that must open the answer is a mention). */
  #answerStarted = false;
  /** A thinking block opened the answer and closed, and no answer text has been shown since. */
  #afterThinking = false;
  /**
   * The start of the answer still matters (a marker that must open it could come, or blanks after thinking are
   * to drop): one flag, so the hot path of a stream well under way checks a single field.
   */
  #atStart = false;
  readonly #hasOpeningMarker: boolean;
  /** Text other than whitespace was shown since the last line break (then a marker is mid-sentence). */
  #lineHasText = false;
  /** Whether the block being hidden opened its line. */
  #blockOpensLine = true;
  /** The last character other than whitespace shown on the current line (0 at its start). */
  #lastTextCode = 0;

  constructor(
    markers: readonly ToolCallMarkupMarker[] = defaultToolCallMarkupMarkers,
    options: ToolCallMarkupStreamFilterOptions = {},
  ) {
    this.#release = options.release;
    const prepared = preparedMarkersOf(markers);
    this.#markers = prepared.markers;
    this.#firstPattern = new RegExp(prepared.firstPattern.source, 'g');
    this.#byPrefix = prepared.byPrefix;
    this.#byFirst = prepared.byFirst;
    this.#hasSingleCharacterMarker = prepared.hasSingleCharacterMarker;
    this.#hasOpeningMarker = prepared.markers.some((marker) => marker.opensAnswer);
    this.#atStart = this.#hasOpeningMarker;
  }

  /** Feeds the next chunk; returns the visible text that can be shown now (possibly empty). */
  process(chunk: string): string {
    if (typeof chunk !== 'string' || chunk.length === 0) return '';
    // While the start of the answer matters, every chunk takes the scan (which notes where the answer starts).
    if (!this.#atStart && this.#pending === '' && !this.#inside && !this.#mayHoldMarker(chunk)) {
      this.#code.advance(chunk);
      this.#noteLine(chunk, 0, chunk.length);
      return chunk;
    }
    const buffer = this.#pending + chunk;
    this.#pending = '';
    this.#codeAt = 0;
    const shown = this.#scan(buffer);
    return this.#atStart ? this.#passAtStart(shown) : shown;
  }

  /**
   * Text shown while the start of the answer still matters (the scan has noted whether the answer started):
   * drops the blank lines a model writes between its thinking and its answer.
   */
  #passAtStart(shown: string): string {
    let text = shown;
    if (this.#afterThinking) {
      text = shown.trimStart();
      if (text !== '') this.#afterThinking = false;
    }
    this.#atStart = (this.#hasOpeningMarker && !this.#answerStarted) || this.#afterThinking;
    return text;
  }

  /**
   * The raw text of the markup block the stream is inside, marker included (at most 4 MiB), or undefined
   * outside a block: after the last chunk it is the unclosed block that {@link flush} drops.
   */
  get openBlock(): string | undefined {
    return this.#inside && !this.#inside.reasoning ? this.#block + this.#pending : undefined;
  }

  /** The reasoning read since the last call (the content of reasoning blocks), possibly empty. */
  takeReasoning(): string {
    const reasoning = this.#reasoning;
    this.#reasoning = '';
    return reasoning;
  }

  #keep(text: string): void {
    if (this.#block.length < maximumBlockLength) this.#block += text;
  }

  #scan(buffer: string): string {
    let output = '';
    let position = 0;
    while (position < buffer.length) {
      if (this.#inside) {
        const marker = this.#inside;
        if (marker.closes.length === 0) {
          const rest = position === 0 ? buffer : buffer.slice(position);
          if (marker.reasoning) this.#reasoning += rest;
          else this.#keep(rest);
          return output;
        }
        let closeAt = -1;
        let closeLength = 0;
        for (const close of marker.closes) {
          const hit = indexOfIgnoringCase(buffer, close, position);
          if (hit >= 0 && (closeAt < 0 || hit < closeAt)) {
            closeAt = hit;
            closeLength = close.length;
          }
        }
        if (closeAt < 0) {
          // Keep just enough to recognise a closing marker split across chunks.
          const keepFrom = Math.max(position, buffer.length - (marker.maxCloseLength - 1));
          if (marker.reasoning) this.#reasoning += buffer.slice(position, keepFrom);
          else this.#keep(buffer.slice(position, keepFrom));
          this.#pending = buffer.slice(keepFrom);
          return output;
        }
        const end = closeAt + closeLength;
        if (marker.reasoning) {
          this.#reasoning += buffer.slice(position, closeAt);
          if (marker.opensAnswer) {
            this.#afterThinking = true;
            this.#atStart = true;
          }
        } else if (this.#release && this.#block.length < maximumBlockLength) {
          const shown = this.#release(this.#block + buffer.slice(position, end), this.#blockOpensLine);
          // Shown text is read like any other: a backtick in it opens code.
          this.#code.advance(shown);
          this.#noteLine(shown, 0, shown.length);
          output += shown;
        }
        this.#inside = undefined;
        this.#block = '';
        position = end;
        this.#codeAt = position;
        continue;
      }
      const found = this.#findOpening(buffer, position);
      if (found.kind === 'none') {
        this.#code.advance(buffer, this.#codeAt);
        this.#noteText(buffer, position, buffer.length);
        output += position === 0 ? buffer : buffer.slice(position);
        return output;
      }
      this.#noteText(buffer, position, found.index);
      output += buffer.slice(position, found.index);
      if (found.kind === 'partial') {
        this.#pending = buffer.slice(found.index);
        return output;
      }
      position = found.index + found.marker.open.length;
      // A closing tag after prose on its line is a mention ("put it between <tool_call> and </tool_call>"); after
      // a call's JSON or another tag, and a closing special token anywhere, it is markup.
      if (
        found.marker.orphanClose &&
        this.#lineHasText &&
        found.marker.open.startsWith('</') &&
        !endsStructure(this.#lastTextCode)
      ) {
        const mention = buffer.slice(found.index, position);
        this.#code.advance(mention);
        output += mention;
        this.#codeAt = position;
        continue;
      }
      // Call markup, not thinking, starts the answer: a `<think>` after it is a mention.
      if (!found.marker.reasoning && !found.marker.alone) this.#answerStarted = true;
      if (found.marker.alone) continue;
      this.#blockOpensLine = !this.#lineHasText;
      this.#inside = found.marker;
      this.#block = buffer.slice(found.index, position);
    }
    return output;
  }

  /** Ends the stream: returns held-back text, or nothing when the stream ended inside a block. */
  flush(): string {
    if (this.#inside?.reasoning) this.#reasoning += this.#pending;
    let rest = this.#inside ? '' : this.#pending;
    if (this.#atStart) rest = this.#passAtStart(rest);
    this.#afterThinking = false;
    this.#pending = '';
    this.#inside = undefined;
    this.#block = '';
    this.#code = new CodeSpanTracker();
    this.#codeAt = 0;
    this.#answerStarted = false;
    this.#atStart = this.#hasOpeningMarker;
    this.#lineHasText = false;
    this.#lastTextCode = 0;
    this.#blockOpensLine = true;
    return rest;
  }

  #noteText(buffer: string, from: number, to: number): void {
    if (!this.#answerStarted && this.#hasOpeningMarker && hasText(buffer, from, to))
      this.#answerStarted = true;
    this.#noteLine(buffer, from, to);
  }

  /** Notes whether text shown since the last line break holds more than whitespace. */
  #noteLine(text: string, from: number, to: number): void {
    if (to <= from) return;
    const lineBreak = text.lastIndexOf('\n', to - 1);
    if (lineBreak >= from) {
      this.#lineHasText = false;
      this.#lastTextCode = 0;
    }
    for (let index = to - 1; index > Math.max(lineBreak, from - 1); index--) {
      const code = text.charCodeAt(index);
      if (isWhitespaceCode(code)) continue;
      this.#lineHasText = true;
      this.#lastTextCode = code;
      return;
    }
  }

  /** Whether the open block (see {@link openBlock}) opened its line. */
  get openBlockOpensLine(): boolean {
    return this.#blockOpensLine;
  }

  #mayHoldMarker(chunk: string): boolean {
    this.#firstPattern.lastIndex = 0;
    return this.#firstPattern.test(chunk);
  }

  #candidatesAt(buffer: string, index: number): readonly PreparedMarker[] {
    const first = String.fromCharCode(lowerCode(buffer.charCodeAt(index)));
    const byFirst = this.#byFirst.get(first) ?? noMarkers;
    if (index + 1 >= buffer.length) return byFirst;
    const prefix = first + String.fromCharCode(lowerCode(buffer.charCodeAt(index + 1)));
    const byPrefix = this.#byPrefix.get(prefix) ?? noMarkers;
    return this.#hasSingleCharacterMarker
      ? [...byFirst.filter((marker) => marker.open.length === 1), ...byPrefix]
      : byPrefix;
  }

  #findOpening(
    buffer: string,
    from: number,
  ):
    | { kind: 'none' }
    | { kind: 'partial'; index: number }
    | { kind: 'full'; index: number; marker: PreparedMarker } {
    const pattern = this.#firstPattern;
    pattern.lastIndex = from;
    while (true) {
      if (!pattern.test(buffer)) return { kind: 'none' };
      const index = pattern.lastIndex - 1;
      let full: PreparedMarker | undefined;
      let partial = false;
      this.#code.advance(buffer, this.#codeAt, index);
      this.#codeAt = index;
      const mentioned = this.#code.inCode;
      for (const marker of mentioned ? noMarkers : this.#candidatesAt(buffer, index)) {
        if (marker.opensAnswer && (this.#answerStarted || hasText(buffer, from, index))) continue;
        const state = matchAt(buffer, index, marker);
        if (state === 'partial') partial = true;
        else if (state === 'full' && (!full || marker.open.length > full.open.length)) full = marker;
      }
      if (partial) return { kind: 'partial', index };
      if (full) return { kind: 'full', index, marker: full };
      pattern.lastIndex = index + 1;
    }
  }
}

/** {@link ToolCallMarkupStreamFilter} for `<function_calls>…</function_calls>` only: the narrow filter of the system we model (docs/decisions/differences-from-onyx.md). */
export class XmlToolCallStreamFilter extends ToolCallMarkupStreamFilter {
  constructor() {
    super([functionCallsMarker]);
  }
}

function matchAt(buffer: string, index: number, marker: PreparedMarker): 'full' | 'partial' | 'none' {
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
function indexOfIgnoringCase(haystack: string, needle: string, from: number): number {
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

const noMarkers: readonly PreparedMarker[] = [];

/** Whether `text` holds a character other than whitespace between `from` and `to`. */
// `}`, `]`, `)`, `>`, `"`: the end of a call's JSON, arguments or tag, which a closing tag right after closes.
function endsStructure(code: number): boolean {
  return code === 0x7d || code === 0x5d || code === 0x29 || code === 0x3e || code === 0x22;
}

function hasText(text: string, from: number, to: number): boolean {
  for (let index = from; index < to; index++) if (!isWhitespaceCode(text.charCodeAt(index))) return true;
  return false;
}
const maximumBlockLength = 4 * 1024 * 1024;

function addTo(map: Map<string, PreparedMarker[]>, key: string, marker: PreparedMarker): void {
  const list = map.get(key);
  if (list) list.push(marker);
  else map.set(key, [marker]);
}

function lowerCode(code: number): number {
  return code >= 0x41 && code <= 0x5a ? code + 0x20 : code;
}

interface PreparedMarkers {
  readonly markers: readonly PreparedMarker[];
  readonly firstCharacters: readonly string[];
  readonly firstPattern: RegExp;
  readonly byPrefix: ReadonlyMap<string, PreparedMarker[]>;
  readonly byFirst: ReadonlyMap<string, PreparedMarker[]>;
  readonly hasSingleCharacterMarker: boolean;
}

// A filter is made per model step (two or more per turn), nearly always with the same marker list: its tables
// are built once per list. They are never changed after they are built.
const preparedByList = new WeakMap<readonly ToolCallMarkupMarker[], PreparedMarkers>();

function preparedMarkersOf(list: readonly ToolCallMarkupMarker[]): PreparedMarkers {
  const cached = preparedByList.get(list);
  if (cached) return cached;
  const usable = list.filter((marker) => marker.open.length > 0);
  const opens = new Set(usable.map((marker) => lowerCaseAscii(marker.open)));
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
      closes: marker.closes.filter((close) => close.length > 0).map(lowerCaseAscii),
      requiresTagEnd: marker.requiresTagEnd === true,
      maxCloseLength: Math.max(0, ...marker.closes.map((close) => close.length)),
    })),
    ...[...orphanCloses]
      .filter((close) => !opens.has(close))
      .map((close) => ({
        open: close,
        alone: true,
        orphanClose: true,
        reasoning: false,
        opensAnswer: false,
        closes: [],
        requiresTagEnd: false,
        maxCloseLength: 0,
      })),
  ];
  const byFirst = new Map<string, PreparedMarker[]>();
  const byPrefix = new Map<string, PreparedMarker[]>();
  for (const marker of markers) {
    addTo(byFirst, marker.open[0]!, marker);
    // A one-character marker is complete at its first character: file it under every possible second one
    // would be unbounded, so it is looked up by its first character alone (see #candidatesAt).
    if (marker.open.length > 1) addTo(byPrefix, marker.open.slice(0, 2), marker);
  }
  const firstCharacters = spellings(markers.map((marker) => marker.open[0]!));
  const prepared: PreparedMarkers = {
    markers,
    firstCharacters,
    firstPattern: new RegExp(`[${firstCharacters.map(escapeClassCharacter).join('')}]`),
    byPrefix,
    byFirst,
    hasSingleCharacterMarker: markers.some((marker) => marker.open.length === 1),
  };
  preparedByList.set(list, prepared);
  return prepared;
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

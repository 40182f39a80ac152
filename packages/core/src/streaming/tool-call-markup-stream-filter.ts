import { CodeSpanTracker } from '../recovery/code-span-tracker.ts';
import { isWhitespaceCode, skipWhitespace } from '../recovery/text-search.ts';
import type { ToolCallMarkupMarker } from '../recovery/tool-call-markup-marker.ts';
import { defaultToolCallMarkupMarkers } from '../recovery/tool-call-parser-registry.ts';
import {
  type AnswerStart,
  hiddenStart,
  inOpeningBlock,
  insideWrapper,
  notStarted,
  started,
} from './answer-start.ts';
import {
  braceMetAt,
  callWatchingTableOf,
  candidatesAt,
  indexOfIgnoringCase,
  type MarkupMarkerTable,
  markupMarkerTableOf,
  matchAt,
  noMarkers,
  type PreparedMarker,
  pastTurnEnd,
} from './markup-marker-table.ts';
import type { ToolCallMarkupStreamFilterOptions } from './markup-stream-filter-options.ts';

export type { ToolCallMarkupStreamFilterOptions } from './markup-stream-filter-options.ts';

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
  // At most 13 private fields, on purpose: V8 sizes a class's objects by its first seven instances, and when a
  // full GC runs while none of them is alive, later instances keep only a few fields in the object. Beyond that,
  // private fields (keyed stores) spill into a property array of at most 12, after which every instance of the
  // class becomes a hash table for good: the filter ran at half speed for the rest of the process (found in the
  // recovery bench; `markup-filter-object-shape.test.ts` checks it). Derived state is therefore derived, not kept.
  /**
   * The markers that may start at a character, by its first two or three characters (few for a `<` in prose),
   * and the one native search (`firstPattern`) that finds the next place a marker may start.
   */
  readonly #table: MarkupMarkerTable;
  #pending = '';
  #inside: PreparedMarker | undefined;
  /** The raw text of the block being hidden, marker included (bounded), for {@link openBlock}. */
  #block = '';
  /** Inline code and fences in the text shown so far: markers inside code are mentions. */
  #code = new CodeSpanTracker();
  /** How far into the current buffer {@link #code} has read. */
  #codeAt = 0;
  /** The options: `release` and `bracketOpens`, one field for both (see the field count above). */
  readonly #options: ToolCallMarkupStreamFilterOptions;
  /** Reasoning read since the last {@link takeReasoning}. */
  #reasoning = '';
  /**
   * Whether text other than whitespace has passed (then a marker that must open the answer is a mention), and
   * whether the answer opened with a see-through wrapper the filter hid, whose close is still to come (one field:
   * see the field count above).
   */
  #answer: AnswerStart = notStarted;
  /** A thinking block opened the answer and closed, and no answer text has been shown since. */
  #afterThinking = false;
  /**
   * The start of the answer still matters (a marker that must open it could come, or blanks after thinking are
   * to drop): one flag, so the hot path of a stream well under way checks a single field.
   */
  #atStart = false;
  /**
   * Whether the text the last chunk showed may hold a `[` that opens what the caller looks for, as the search for
   * the markers' first characters met it (see {@link mayHaveShownBracket}).
   */
  #bracketShown = false;
  /**
   * The last character other than whitespace shown on the current line, 0 while the line holds none (then a
   * marker opens its line; else it is mid-sentence).
   */
  #lastTextCode = 0;

  constructor(
    markers: readonly ToolCallMarkupMarker[] = defaultToolCallMarkupMarkers,
    options: ToolCallMarkupStreamFilterOptions = {},
  ) {
    this.#options = options;
    this.#table =
      options.braceOpens && options.braceKeyFirsts
        ? callWatchingTableOf(markers, options.braceKeyFirsts)
        : markupMarkerTableOf(markers);
    this.#atStart = this.#table.hasOpeningMarker;
  }

  /** Feeds the next chunk; returns the visible text that can be shown now (possibly empty). */
  process(chunk: string): string {
    if (typeof chunk !== 'string' || chunk.length === 0) return '';
    // While the start of the answer matters, every chunk takes the scan (which notes where the answer starts).
    if (!this.#atStart && this.#pending === '' && !this.#inside && !this.#mayHoldMarker(chunk)) {
      this.#bracketShown = false;
      this.#code.advance(chunk);
      this.#noteLine(chunk, 0, chunk.length);
      return chunk;
    }
    this.#bracketShown = false;
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
    this.#atStart = (this.#table.hasOpeningMarker && this.#answer <= hiddenStart) || this.#afterThinking;
    return text;
  }

  /**
   * The raw text of the markup block the stream is inside, marker included (at most 4 MiB), or undefined
   * outside a block: after the last chunk it is the unclosed block that {@link flush} drops.
   */
  get openBlock(): string | undefined {
    return this.#inside && !this.#inside.reasoning && this.#inside !== pastTurnEnd
      ? this.#block + this.#pending
      : undefined;
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
          if (marker === pastTurnEnd) return output;
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
        } else {
          let shown = '';
          const release = this.#options.release;
          if (release && this.#block.length < maximumBlockLength) {
            shown = release(this.#block + buffer.slice(position, end), this.#lastTextCode === 0);
            // Shown text is read like any other: a backtick in it opens code.
            this.#code.advance(shown);
            this.#noteLine(shown, 0, shown.length);
            output += shown;
            this.#bracketShown = true;
          }
          if (this.#answer === inOpeningBlock) {
            this.#answer = shown === '' ? hiddenStart : started;
            this.#atStart = shown === '';
          }
          // A block the template ends the turn with, released as a call: what follows is past the turn. Without
          // a release every block is hidden, call or not, so nothing says the turn ended.
          if (marker.endsTurn && release && shown === '') {
            this.#inside = pastTurnEnd;
            this.#block = '';
            this.#pending = '';
            return output;
          }
        }
        this.#inside = undefined;
        this.#block = '';
        position = end;
        this.#codeAt = position;
        continue;
      }
      // Only hidden calls so far: the blank lines after them go, as after thinking.
      if (this.#answer === hiddenStart) position = skipWhitespace(buffer, position);
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
        this.#lastTextCode !== 0 &&
        found.marker.open.startsWith('</') &&
        !endsStructure(this.#lastTextCode)
      ) {
        const mention = buffer.slice(found.index, position);
        this.#code.advance(mention);
        output += mention;
        this.#bracketShown = true;
        this.#codeAt = position;
        continue;
      }
      // Call markup, not thinking, starts the answer: a `<think>` after it is a mention.
      // A see-through wrapper around it stays open; a call block opening the answer is noted (see `hiddenStart`).
      if (!found.marker.reasoning && !found.marker.alone && this.#answer <= hiddenStart)
        this.#answer = this.#table.hasOpeningMarker ? inOpeningBlock : started;
      if (found.marker.alone) {
        // A see-through wrapper opening the answer starts it too; its close (only matched while it is open) ends it.
        if (found.marker.wraps) this.#answer = insideWrapper;
        else if (found.marker.closesWrapper) this.#answer = started;
        continue;
      }
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
    this.#answer = notStarted;
    this.#atStart = this.#table.hasOpeningMarker;
    this.#lastTextCode = 0;
    this.#bracketShown = false;
    return rest;
  }

  #noteText(buffer: string, from: number, to: number): void {
    if (this.#answer <= hiddenStart && this.#table.hasOpeningMarker && skipWhitespace(buffer, from, to) < to)
      this.#answer = started;
    this.#noteLine(buffer, from, to);
  }

  /**
   * Notes whether text shown since the last line break holds more than whitespace. Read backwards, it stops at
   * the first character that is not blank: one or two reads for most chunks.
   */
  #noteLine(text: string, from: number, to: number): void {
    for (let index = to - 1; index >= from; index--) {
      const code = text.charCodeAt(index);
      if (code === 0x0a) {
        this.#lastTextCode = 0;
        return;
      }
      if (isWhitespaceCode(code)) continue;
      // A NUL counts as text too (it is not whitespace): kept as U+FFFD so that 0 still means "no text".
      this.#lastTextCode = code === 0 ? 0xfffd : code;
      return;
    }
  }

  /**
   * Whether the open block (see {@link openBlock}) opened its line. Nothing is noted of a line while a block is
   * open, so the line as noted when it opened says it.
   */
  get openBlockOpensLine(): boolean {
    return this.#lastTextCode === 0;
  }

  /**
   * Whether the text the last {@link process} returned may hold a `[` or `{"` that `bracketOpens` / `braceOpens`
   * accept (or text the search did not read: a block released, a mention); of `[`, only when it is searched for.
   */
  get mayHaveShownBracket(): boolean {
    return this.#bracketShown;
  }

  /** Whether `character` is a marker's first character, which every chunk is searched for. */
  searchesFor(character: string): boolean {
    return this.#table.firstCharacters.includes(character);
  }

  /**
   * Whether a marker may start in `chunk`, no text pending. A chunk where the search meets a `{"` and a key's
   * letter (rare in prose) takes the scan too, which looks at the brace.
   */
  #mayHoldMarker(chunk: string): boolean {
    const pattern = this.#table.firstPattern;
    pattern.lastIndex = 0;
    return pattern.test(chunk);
  }

  /** Whether the text shown last ends in inline code; not asked after a backtick (it would end that run). */
  get endsInInlineCode(): boolean {
    return this.#code.inInlineCode;
  }

  #findOpening(
    buffer: string,
    from: number,
  ):
    | { kind: 'none' }
    | { kind: 'partial'; index: number }
    | { kind: 'full'; index: number; marker: PreparedMarker } {
    const pattern = this.#table.firstPattern;
    pattern.lastIndex = from;
    while (true) {
      if (!pattern.test(buffer)) return { kind: 'none' };
      const index = pattern.lastIndex - 1;
      const hit = buffer.charCodeAt(index);
      if (hit === 0x5b && !this.#bracketShown && this.#options.bracketOpens?.(buffer, index))
        this.#bracketShown = true;
      let full: PreparedMarker | undefined;
      let partial = false;
      this.#code.advance(buffer, this.#codeAt, index);
      this.#codeAt = index;
      const mentioned = this.#code.inCode;
      for (const marker of mentioned ? noMarkers : candidatesAt(this.#table, buffer, index)) {
        if (
          marker.opensAnswer &&
          (this.#answer !== notStarted || skipWhitespace(buffer, from, index) < index)
        )
          continue;
        if (marker.closesWrapper && this.#answer !== insideWrapper) continue;
        const state = matchAt(buffer, index, marker);
        if (state === 'partial') partial = true;
        else if (state === 'full' && (!full || marker.open.length > full.open.length)) full = marker;
      }
      if (partial) return { kind: 'partial', index };
      if (full?.watched) {
        // A watched word (a namespaced call's `functions.`) is shown: reported when it may open a call.
        if (!this.#bracketShown && this.#options.namespaceOpens?.(buffer, index)) this.#bracketShown = true;
      } else if (full) return { kind: 'full', index, marker: full };
      // `{"` and a key's letter, outside code (recovery reads no call in inline code), which opens no marker.
      if (hit >= 0x61 && !mentioned && !this.#bracketShown && this.#table.watchesBraces) {
        const brace = braceMetAt(this.#table, buffer, from);
        if (brace >= 0 && this.#options.braceOpens?.(buffer, brace)) this.#bracketShown = true;
      }
      pattern.lastIndex = index + 1;
    }
  }
}

// `}`, `]`, `)`, `>`, `"`: the end of a call's JSON, arguments or tag, which a closing tag right after closes.
function endsStructure(code: number): boolean {
  return code === 0x7d || code === 0x5d || code === 0x29 || code === 0x3e || code === 0x22;
}

const maximumBlockLength = 4 * 1024 * 1024;

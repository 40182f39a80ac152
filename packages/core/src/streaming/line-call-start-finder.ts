import { isWhitespaceCode, skipWhitespaceBack, toolNamespacePrefixes } from '../recovery/text-search.ts';
import { bracketMayOpen, calleeMayStart, mayOpenCall, namespacedCallVerdict } from './bracket-call-opener.ts';
import { type JsonCallOpener, opensMaybe, opensNo, opensYes } from './json-call-opener.ts';
import { watchedNamespace } from './markup-marker-table.ts';

/**
 * Finds, in an answer's shown text read chunk by chunk, the lines after prose that may open a tool call: a line
 * whose text, after an indent of up to three spaces, may start one (`[` or a callee's first letters, `{` or `[{`
 * of a bare JSON call, see {@link mayOpenCall}, or a code fence's backticks, whose block may hold a call; in a
 * list item, after its marker, `[`, `{`, a fence or a namespace prefix's first letter, as recovery reads calls
 * there), and within a line of prose a bracketed call (`[name(`) or a JSON call (`{"name": …}`, `[{…}]`, see
 * `JsonCallOpener`). As in Markdown, a line indented four columns or more (a tab counts to the next multiple of
 * four) after prose is a line of an indented code block, a line inside a code fence is code, and a `>` line is a
 * quote (but Functionary's `>>>name`, which opens a call): a call there is an example, shown as written (recovery reads no call there either, see
 * `onMarkdownExampleLine`). The indent and list marker of a line are shown as they come, so a list is never held:
 * the hold starts after them. Line starts and fences are followed across chunks: each character is read once.
 *
 * Why not `CodeSpanTracker`, which follows code for the markup filter and recovery: it counts any run of three
 * backticks as a fence, anywhere in a line, so it must see every chunk; this finder is asked only when a chunk
 * holds a line start (prose within a line costs one newline test), and counts fences only where Markdown opens
 * them, at a line start. One rule for both is still to be chosen (it would change what recovery reads as code).
 */
export class LineCallStartFinder {
  readonly #starts: ReadonlySet<number>;
  /** The next character read is in a line's lead (after what `#lead` counts of it). */
  #atLineStart = false;
  /**
   * What was read of the current line's lead before the chunk ended (see {@link #readLead}): its indent, backticks,
   * phase and list number's digits in one number. One field for all keeps the object small.
   */
  #lead = 0;
  #inFence = false;
  /** The next line start (or place within a line) was already decided (held and released): not found again. */
  #skipNext = false;
  /** Where the last place {@link find} found stands: {@link holdOpensLine}, after a line's lead, within a line. */
  #holdAt = 0;
  /**
   * The rest of the current line is prose, where a bracketed or JSON call may open within the line (`I'll check.
   * [get_weather(…)]`, as recovery reads them): not code (a fence, an indented block) nor a quote.
   */
  #plainLine = false;

  /**
   * Whether the markup filter searches every chunk for `[` (a marker's first character, `[TOOL_CALLS]`): then a
   * chunk it did not search holds none (see {@link mayStartIn}).
   */
  readonly #bracketSearched: boolean;
  /** Whether the text held since the last {@link takeHeldBracket} may hold a `[` or `{` that opens a call. */
  #heldBracket = false;
  /** Whether a `{` within a line of prose may open a JSON call (none: no `{` is looked at there). */
  readonly #json: JsonCallOpener | undefined;
  /** Only whitespace was shown before the current line: an indent there opens no code block. */
  #answerStart = false;

  /**
   * `starts`: how a callee starts (`CallStartClassifier.namedCallStarts`); `bracketSearched`: whether the markup
   * filter before this finder searches its chunks for `[`; `json`: JSON calls within a line of prose, whose `{`
   * the markup filter meets.
   */
  constructor(starts: ReadonlySet<number>, bracketSearched = false, json?: JsonCallOpener) {
    this.#starts = starts;
    this.#bracketSearched = bracketSearched;
    this.#json = json;
  }

  /**
   * Notes that text the answer filter holds came from a chunk that, as `bracket` says (see {@link mayStartIn}),
   * may hold a `[` that opens a call: when the held text is released, only then is its rest searched for one.
   */
  noteHeld(bracket: boolean): void {
    if (bracket) this.#heldBracket = true;
  }

  /** Whether the text held since the last call may hold a `[` that opens a call (see {@link noteHeld}). */
  takeHeldBracket(): boolean {
    const bracket = this.#heldBracket || !this.#bracketSearched;
    this.#heldBracket = false;
    return bracket;
  }

  /** Forgets the answer read so far. */
  reset(): void {
    this.#heldBracket = false;
    this.#atLineStart = false;
    this.#lead = 0;
    this.#inFence = false;
    this.#skipNext = false;
    this.#plainLine = false;
    this.#answerStart = false;
    this.#holdAt = holdOpensLine;
  }

  /**
   * The text next read starts at a line start whose call was decided (the held text, released): its fences are
   * counted, its first line is not found again. `answerStart`: the text opens the answer.
   */
  restartDecided(answerStart = false): void {
    this.#atLineStart = true;
    this.#lead = 0;
    this.#skipNext = true;
    this.#answerStart = answerStart;
  }

  /**
   * The text next read goes on a line of prose from a place within it that was decided (the held text, released):
   * its first character is not found again.
   */
  restartWithinLine(): void {
    this.#atLineStart = false;
    this.#plainLine = true;
    this.#skipNext = true;
  }

  /** The text next read starts a new line, not yet decided (the line after a call that was cut out). */
  restartAtLineStart(): void {
    this.#atLineStart = true;
    this.#lead = 0;
    this.#skipNext = false;
  }

  /**
   * Whether the last place {@link find} found opens its line: else an indent or a list marker before it was
   * shown, and a line whose call is cut out keeps its end so that the next line does not join them.
   */
  get holdOpensLine(): boolean {
    return this.#holdAt === holdOpensLine;
  }

  /** Whether the last place {@link find} found stands within a line of prose, after text shown on it. */
  get holdWithinLine(): boolean {
    return this.#holdAt === holdWithinLine || this.#holdAt === holdPending;
  }

  /**
   * Whether the last place {@link find} found, within a line, ends the text while it may still open a call (`[`,
   * `{"na`): the answer filter sets it aside and reads it again with the next chunk, so that prose that turns
   * out not to be a call (`[1]`, `{"note"`) costs no hold.
   */
  get holdPending(): boolean {
    return this.#holdAt === holdPending;
  }

  /**
   * Whether a call may start in `text`, the text shown next (else {@link find} finds nothing in it). Small, so
   * that it is inlined where every chunk passes. `markup`: the filter the text came through, asked only for a
   * chunk longer than a character whether its search for its markers' first characters met a `[` that may open a
   * call; when `[` is one of them, a chunk where it met none holds none, so prose within a line costs one newline
   * search, not a second pass for a bracket (a chunk that may hold one is left to `find`, which looks for both).
   * The same holds for `{"` and a key's letter (see `callWatchingTableOf`); a `{` or `{"` ending the chunk is looked at.
   */
  mayStartIn(text: string, markup: ShownBrackets): boolean {
    if (this.#atLineStart) return true;
    // A one-character chunk is looked at in place: cheaper than the builtin's call, per character streamed.
    if (text.length === 1) {
      const code = text.charCodeAt(0);
      return (
        code === 0x0a || (this.#plainLine && (code === 0x5b || (code === 0x7b && !markup.endsInInlineCode)))
      );
    }
    if (
      this.#plainLine &&
      (!this.#bracketSearched || markup.mayHaveShownBracket || endsLikeBrace(text, markup))
    )
      return true;
    return text.includes('\n');
  }

  /**
   * How far text set aside at a chunk's end (see {@link holdPending}), read again with the next chunk, goes
   * toward a call: decided on its first characters, so that the chunk is not searched again.
   */
  asideVerdict(text: string): number {
    return this.#opensWithinLine(text, 0);
  }

  /**
   * Where in `text`, the text shown next, a call may open; -1 when none does (all of it can be shown). `bracket`:
   * as in {@link mayStartIn}, whether `text` may hold a `[` or `{` that opens a call (false: no line's rest is
   * searched for one that the markup filter meets); `markup`: the filter the text came through, asked whether a
   * `{` or `{"` ending it is in inline code (none: it is not looked at).
   */
  find(text: string, bracket = true, markup?: ShownBrackets): number {
    // The next `[` and `{` in the text, searched once per find for all its lines (-1: none left).
    let next = bracket || !this.#bracketSearched ? -2 : -1;
    let brace = bracket && this.#json !== undefined ? -2 : -1;
    let namespace = brace;
    let from = 0;
    // Kept in a local while the text's lines are read, written back once at the end.
    let atLineStart = this.#atLineStart;
    let lead = atLineStart ? this.#lead : 0;
    if (!atLineStart) {
      from = this.#skipNext ? 1 : 0;
      this.#skipNext = false;
    }
    for (;;) {
      if (!atLineStart) {
        // The rest of a line of prose: a call within it (`I'll check. [get_weather(…)]`, `{"name": …}`).
        const newline = text.indexOf('\n', from);
        const end = newline < 0 ? text.length : newline;
        for (let at = from; this.#plainLine; ) {
          if (next !== -1 && next < at) next = text.indexOf('[', at);
          if (brace !== -1 && brace < at) brace = text.indexOf('{', at);
          if (namespace !== -1 && namespace < at) namespace = text.indexOf(watchedNamespace, at);
          const place = firstOf(firstOf(next, brace), namespace);
          if (place < 0 || place >= end) break;
          const verdict = this.#opensWithinLine(text, place);
          if (verdict !== opensNo) {
            this.#atLineStart = false;
            this.#holdAt = verdict === opensMaybe ? holdPending : holdWithinLine;
            return place;
          }
          at = place + 1;
        }
        // A `{` that only blanks (also line breaks: a pretty-printed call) and a quote follow to the text's end.
        const aside = markup && this.#plainLine ? this.#trailingBraceAt(text, from) : -1;
        if (newline < 0 || (aside >= 0 && aside < newline)) {
          this.#atLineStart = false;
          // Asked only of a text that ends with a brace, a blank or a quote: no run of backticks is cut short.
          if (aside < 0 || (newline < 0 && (markup as ShownBrackets).endsInInlineCode)) return -1;
          this.#holdAt = holdPending;
          return aside;
        }
        atLineStart = true;
        from = newline + 1;
        lead = 0;
      }
      const verdict = this.#readLead(text, from, lead);
      if (verdict === undecided) {
        this.#atLineStart = true;
        return -1;
      }
      if (verdict >= 0) {
        this.#atLineStart = true;
        this.#holdAt = lead === 0 && verdict === from ? holdOpensLine : holdAfterLead;
        this.#lead = 0;
        return verdict;
      }
      // The line goes on as prose (its lead read: `#lead` is read again only at a line start).
      this.#skipNext = false;
      atLineStart = false;
      from = -verdict - 1;
      if (text.charCodeAt(from) !== 0x0a) this.#answerStart = false;
    }
  }

  /**
   * Where the `{` ending `text` (or a `[` right before it, `[{`) stands, from `from` on, when it may open a JSON
   * call (-1: it may not): the search for `{"` could not meet its quote, which the next chunk may bring.
   */
  #trailingBraceAt(text: string, from: number): number {
    const brace = this.#json === undefined ? -1 : openBraceAtEnd(text, from);
    if (brace < 0) return -1;
    const before = skipWhitespaceBack(text, brace - 1, from);
    return before >= from && text.charCodeAt(before) === 0x5b ? before : brace;
  }

  /**
   * How far the `[`, `{` or `functions.` at `at`, within a line of prose, goes toward a call: a bracketed call
   * (`[name(`), a list of JSON calls (`[{"name": …}]`), a JSON call or a namespaced call; maybe when the text
   * ends before it can tell.
   */
  #opensWithinLine(text: string, at: number): number {
    const json = this.#json;
    const code = text.charCodeAt(at);
    if (code === 0x7b) return json === undefined ? opensNo : json.verdict(text, at);
    if (code === 0x66) return namespacedCallVerdict(text, at, this.#starts);
    if (at + 1 >= text.length) return opensMaybe;
    if (bracketMayOpen(text, at + 1, this.#starts)) return opensYes;
    return json === undefined ? opensNo : json.listVerdict(text, at);
  }

  /**
   * Reads a line's lead from `from` (`lead`: what was read of it in earlier chunks): its indent, a fence's
   * backticks, a list item's marker and blanks. Returns where a call may open (the hold starts there), or
   * `-(where the line goes on) - 1` when none can on this line, or {@link undecided} when the text ends first (the
   * lead read so far is then kept in `#lead`; the marker read is shown: a call's hold starts after it).
   */
  #readLead(text: string, from: number, lead: number): number {
    let indent = lead & 0x7;
    let ticks = (lead >> 3) & 0x3;
    let phase = (lead >> 5) & 0x7;
    let digits = lead >> 8;
    let index = from;
    for (; index < text.length; index++) {
      const code = text.charCodeAt(index);
      if (phase === leadIndent) {
        if (ticks === 0 && (code === 0x20 || code === 0x09)) {
          indent = code === 0x09 ? 4 : indent + 1;
          // Four columns: a line of an indented code block.
          // At the answer's start (only blanks before it), as recovery reads it, it is prose.
          if (indent >= 4) return this.#restOfLine(index, this.#answerStart);
          continue;
        }
        if (code === 0x60) {
          // A fence that may open after prose is held from its first backtick (the classifier reads its language
          // and first line); a closing one, or one read again after its hold was released, is counted.
          if (ticks === 0 && !this.#inFence && !this.#skipNext) return index;
          if (++ticks < 3) continue;
          this.#inFence = !this.#inFence;
          return this.#restOfLine(index, false);
        }
        if (this.#inFence) return this.#restOfLine(index, false);
        // Inline code opening the line is prose around it; a decided place is read on from after it.
        if (ticks > 0) return this.#restOfLine(index, true);
        if (this.#skipNext) return this.#restOfLine(index + 1, true);
        if (code === 0x2d || code === 0x2a || code === 0x2b) phase = leadMarker;
        else if (isDigit(code) && !(this.#starts.has(code) && calleeMayStart(text, index, this.#starts))) {
          phase = leadDigits;
          digits = 1;
        } else if (mayOpenCall(text, index, this.#starts)) return index;
        // A quote (`>`) shows an example: no call within it either.
        else return this.#restOfLine(index, code !== 0x3e);
      } else if (phase === leadDigits) {
        if (isDigit(code) && digits < 9) digits++;
        else if (code === 0x2e || code === 0x29) phase = leadMarker;
        else return this.#restOfLine(index, true);
      } else if (phase === leadMarker) {
        if (code !== 0x20 && code !== 0x09) return this.#restOfLine(index, true);
        phase = leadBlanks;
      } else if (code !== 0x20 && code !== 0x09) {
        // A list item's text: only `[name(`, a namespaced call, JSON and a fence count there, as recovery reads them.
        if (code === 0x60) return index;
        if (code === 0x5b || code === 0x7b)
          return mayOpenCall(text, index, this.#starts) ? index : this.#restOfLine(index, true);
        return namespaceFirsts.includes(code) ? index : this.#restOfLine(index, true);
      }
    }
    this.#lead = indent | (ticks << 3) | (phase << 5) | (digits << 8);
    return undecided;
  }

  /** No call opens the line at its lead: its rest, from `at`, is read for one within it when it is prose. */
  #restOfLine(at: number, prose: boolean): number {
    this.#plainLine = prose;
    return -at - 1;
  }
}

/** What the markup filter says of the text it showed last (see `ToolCallMarkupStreamFilter`). */
interface ShownBrackets {
  readonly mayHaveShownBracket: boolean;
  readonly endsInInlineCode: boolean;
}

/**
 * Whether `text` ends with a `{` or `{"` outside inline code: the markup filter's search meets `{"` and a key's
 * first letter only, so the next chunk may still make it a call.
 */
function endsLikeBrace(text: string, markup: ShownBrackets): boolean {
  const last = text.charCodeAt(text.length - 1);
  if (last !== 0x7b && last !== 0x22 && last !== 0x27 && !isWhitespaceCode(last)) return false;
  return openBraceAtEnd(text, 0) >= 0 && !markup.endsInInlineCode;
}

/**
 * Where a `{` stands that only blanks and a quote follow to the end of `text` (`{`, `{ "`, `{\n  `), at `from` or
 * after; else -1. The search for `{"` and a key's letter could not meet what the next chunk may bring.
 */
function openBraceAtEnd(text: string, from: number): number {
  let at = text.length - 1;
  const last = text.charCodeAt(at);
  if (last === 0x22 || last === 0x27) at--;
  at = skipWhitespaceBack(text, at, from);
  return at >= from && text.charCodeAt(at) === 0x7b ? at : -1;
}

/** Where a place {@link LineCallStartFinder.find} found stands. */
const holdOpensLine = 0;
const holdAfterLead = 1;
const holdWithinLine = 2;
/** Within a line, at the text's end, while it may still open a call (see {@link LineCallStartFinder.holdPending}). */
const holdPending = 3;

/** {@link LineCallStartFinder.find}'s phases of a line's lead. */
const leadIndent = 0;
const leadDigits = 1;
const leadMarker = 2;
const leadBlanks = 3;
/** The text ended before the line's lead was read. */
const undecided = -0x7fffffff;

const namespaceFirsts = toolNamespacePrefixes.map((prefix) => prefix.charCodeAt(0));

/** The smaller of two places in a text, -1 standing for none. */
function firstOf(one: number, other: number): number {
  return one < 0 || (other >= 0 && other < one) ? other : one;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

import { isWhitespaceCode, toolNamespacePrefixes } from '../recovery/text-search.ts';

/**
 * Finds, in an answer's shown text read chunk by chunk, the lines after prose that may open a tool call: a line
 * whose text, after an indent of up to three spaces, may start one (`[` or a callee's first letters, `{` or `[{`
 * of a bare JSON call, see {@link mayOpenCall}, or a code fence's backticks, whose block may hold a call; in a
 * list item, after its marker, `[`, `{`, a fence or a namespace prefix's first letter, as recovery reads calls there). As in
 * Markdown, a line indented four columns or more (a tab counts to the next
 * multiple of four) is a line of an indented code block, a line inside a code fence is code, and a `>` line is a
 * quote: a call there is an example, shown as written (recovery reads no call there either, see
 * `onMarkdownExampleLine`). The indent and list marker of a line are shown as they come, so a list is never held:
 * the hold starts after them. Line starts and fences are followed across chunks, so each character is looked at
 * once.
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
  /** The next line start was already decided (held and released): it is not found again. */
  #skipNext = false;
  #holdOpensLine = false;

  /** `starts`: how a callee starts (`CallStartClassifier.namedCallStarts`). */
  constructor(starts: ReadonlySet<number>) {
    this.#starts = starts;
  }

  /** Forgets the answer read so far. */
  reset(): void {
    this.#atLineStart = false;
    this.#lead = 0;
    this.#inFence = false;
    this.#skipNext = false;
  }

  /**
   * The text next read starts at a line start whose call was decided (the held text, released): its fences are
   * counted, its first line is not found again.
   */
  restartDecided(): void {
    this.#atLineStart = true;
    this.#lead = 0;
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
    return this.#holdOpensLine;
  }

  /** Whether a line may start in `text`, the text shown next (else {@link find} finds nothing in it). */
  mayStartIn(text: string): boolean {
    if (this.#atLineStart) return true;
    // A one-character chunk is looked at in place: cheaper than the builtin's call, per character streamed.
    if (text.length === 1) return text.charCodeAt(0) === 0x0a;
    return text.includes('\n');
  }

  /** Where in `text`, the text shown next, a line may open a call; -1 when none does (all of it can be shown). */
  find(text: string): number {
    let index = 0;
    if (!this.#atLineStart) {
      index = text.indexOf('\n') + 1;
      if (index === 0) return -1;
    }
    let lead = this.#atLineStart ? this.#lead : 0;
    for (;;) {
      const verdict = this.#readLead(text, index, lead);
      if (verdict === undecided) {
        this.#atLineStart = true;
        return -1;
      }
      if (verdict >= 0) {
        this.#atLineStart = true;
        this.#holdOpensLine = lead === 0 && verdict === index;
        this.#lead = 0;
        return verdict;
      }
      this.#skipNext = false;
      lead = 0;
      const newline = text.indexOf('\n', -verdict - 1);
      if (newline < 0) {
        this.#atLineStart = false;
        this.#lead = 0;
        return -1;
      }
      index = newline + 1;
    }
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
          if (indent >= 4) return -index - 1;
          continue;
        }
        if (code === 0x60) {
          // A fence that may open after prose is held from its first backtick (the classifier reads its language
          // and first line); a closing one, or one read again after its hold was released, is counted.
          if (ticks === 0 && !this.#inFence && !this.#skipNext) return index;
          if (++ticks < 3) continue;
          this.#inFence = !this.#inFence;
          return -index - 1;
        }
        if (ticks > 0 || this.#skipNext || this.#inFence) return -index - 1;
        if (code === 0x2d || code === 0x2a || code === 0x2b) phase = leadMarker;
        else if (isDigit(code) && !(this.#starts.has(code) && calleeMayStart(text, index, this.#starts))) {
          phase = leadDigits;
          digits = 1;
        } else return mayOpenCall(text, index, this.#starts) ? index : -index - 1;
      } else if (phase === leadDigits) {
        if (isDigit(code) && digits < 9) digits++;
        else if (code === 0x2e || code === 0x29) phase = leadMarker;
        else return -index - 1;
      } else if (phase === leadMarker) {
        if (code !== 0x20 && code !== 0x09) return -index - 1;
        phase = leadBlanks;
      } else if (code !== 0x20 && code !== 0x09) {
        // A list item's text: only `[name(`, a namespaced call, JSON and a fence count there, as recovery reads them.
        if (code === 0x60) return this.#inFence ? -index - 1 : index;
        if (code === 0x5b || code === 0x7b)
          return mayOpenCall(text, index, this.#starts) ? index : -index - 1;
        return namespaceFirsts.includes(code) ? index : -index - 1;
      }
    }
    this.#lead = indent | (ticks << 3) | (phase << 5) | (digits << 8);
    return undecided;
  }
}

/** {@link LineCallStartFinder.find}'s phases of a line's lead. */
const leadIndent = 0;
const leadDigits = 1;
const leadMarker = 2;
const leadBlanks = 3;
/** The text ended before the line's lead was read. */
const undecided = -0x7fffffff;

/**
 * Whether the text of a line (not a list item's) at `at` may open a call, as far as the chunk shows it: a
 * callee's first two characters, `[` and a callee's first character, or a JSON object or list of objects (`{`,
 * `[{`), as recovery reads a bare JSON call on a line of its own. A necessary condition only, mirroring the
 * classifier's forms (the classifier decides a line held): most lines of prose that start with such a character
 * are then not held at all. What lies past the chunk's end is not known: then the line may.
 */
function mayOpenCall(text: string, at: number, starts: ReadonlySet<number>): boolean {
  const code = text.charCodeAt(at);
  if (code === 0x7b) return true;
  if (code === 0x5b) return bracketMayOpen(text, at + 1, starts) || opensObject(text, at + 1);
  return starts.has(code) && calleeMayStart(text, at, starts);
}

// After `[`: whitespace, then `{`.
function opensObject(text: string, from: number): boolean {
  let index = from;
  while (index < text.length && isWhitespaceCode(text.charCodeAt(index))) index++;
  return text.charCodeAt(index) === 0x7b;
}

// After `[`: whitespace, then a callee's start.
function bracketMayOpen(text: string, from: number, starts: ReadonlySet<number>): boolean {
  let index = from;
  while (index < text.length && isWhitespaceCode(text.charCodeAt(index))) index++;
  if (index >= text.length) return true;
  return starts.has(text.charCodeAt(index)) && calleeMayStart(text, index, starts);
}

function calleeMayStart(text: string, at: number, starts: ReadonlySet<number>): boolean {
  return at + 1 >= text.length || starts.has((text.charCodeAt(at) << 16) | text.charCodeAt(at + 1));
}

const namespaceFirsts = toolNamespacePrefixes.map((prefix) => prefix.charCodeAt(0));

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

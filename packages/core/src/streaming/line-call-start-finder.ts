import { isWhitespaceCode, toolNamespacePrefixes } from '../recovery/text-search.ts';

/**
 * Finds, in an answer's shown text read chunk by chunk, the lines after prose that may open a named tool call: a
 * line whose first character, after an indent of up to three spaces, may start one (`[`, a callee's first
 * letter). As in Markdown, a line indented four columns or more (a tab counts to the next multiple of four) is a
 * line of an indented code block, and a line inside a code fence is code: a call there is an example, shown as
 * written (recovery reads it so too, see `inIndentedCodeLine`). The indent of a held line is shown, the hold
 * starts at the opening character. Line starts and fences are followed across chunks, so each character is
 * looked at once.
 *
 * Why not `CodeSpanTracker`, which follows code for the markup filter and recovery: it counts any run of three
 * backticks as a fence, anywhere in a line, so it must see every chunk; this finder is asked only when a chunk
 * holds a line start (prose within a line costs one newline test), and counts fences only where Markdown opens
 * them, at a line start. One rule for both is still to be chosen (it would change what recovery reads as code).
 */
export class LineCallStartFinder {
  readonly #starts: ReadonlySet<number>;
  /** The next character read starts a line (after the indent and backticks already counted). */
  #atLineStart = false;
  /**
   * Columns of indent and backticks read at the start of the current line: the indent in the low byte (up to
   * four), the backticks (fewer than a fence's three) times 256. One field for both keeps the object small.
   */
  #lead = 0;
  #inFence = false;
  /** The next line start was already decided (held and released): it is not found again. */
  #skipNext = false;

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
    const lead = this.#atLineStart ? this.#lead : 0;
    let indent = lead & 0xff;
    let ticks = lead >> 8;
    for (;;) {
      // The indent, up to the four columns that make a code line (none once backticks were read).
      if (ticks === 0) {
        while (index < text.length && indent < 4) {
          const code = text.charCodeAt(index);
          if (code === 0x20) indent++;
          else if (code === 0x09) indent = 4;
          else break;
          index++;
        }
      }
      if (indent < 4) {
        while (index < text.length && ticks < 3 && text.charCodeAt(index) === 0x60) {
          ticks++;
          index++;
        }
      }
      if (index >= text.length && indent < 4 && ticks < 3) {
        this.#atLineStart = true;
        this.#lead = indent | (ticks << 8);
        return -1;
      }
      if (ticks === 3) this.#inFence = !this.#inFence;
      else if (
        ticks === 0 &&
        indent < 4 &&
        !this.#skipNext &&
        !this.#inFence &&
        mayOpenNamedCall(text, index, this.#starts)
      ) {
        this.#atLineStart = true;
        this.#lead = 0;
        return index;
      }
      this.#skipNext = false;
      ticks = 0;
      indent = 0;
      const newline = text.indexOf('\n', index);
      if (newline < 0) {
        this.#atLineStart = false;
        this.#lead = 0;
        return -1;
      }
      index = newline + 1;
    }
  }
}

/**
 * Whether the line text at `at` may open a named call, as far as the chunk shows it: a callee's first two
 * characters, `[` and a callee's first character, or a list marker (`-`, `*`, `+`, `1.`, `1)`) and its blank
 * before `[` or a namespace prefix's first character. A necessary condition only, mirroring the classifier's
 * named forms (the classifier decides a line held): most lines of prose that start with such a character are then
 * not held at all. What lies past the chunk's end is not known: then the line may.
 */
function mayOpenNamedCall(text: string, at: number, starts: ReadonlySet<number>): boolean {
  const code = text.charCodeAt(at);
  // Compared before the set is asked: most lines start with a letter no callee starts with, or a list marker.
  if (code === 0x5b) return bracketMayOpen(text, at + 1, starts);
  let index = at;
  if (code === 0x2d || code === 0x2a || code === 0x2b) index++;
  else if (code >= 0x30 && code <= 0x39) {
    if (starts.has(code) && calleeMayStart(text, at, starts)) return true;
    while (index < text.length && index - at < 9 && isDigit(text.charCodeAt(index))) index++;
    if (index >= text.length) return true;
    const after = text.charCodeAt(index);
    if (after !== 0x2e && after !== 0x29) return false;
    index++;
  } else return starts.has(code) && calleeMayStart(text, at, starts);
  if (index >= text.length) return true;
  if (!isBlank(text.charCodeAt(index))) return false;
  while (index < text.length && isBlank(text.charCodeAt(index))) index++;
  if (index >= text.length) return true;
  const item = text.charCodeAt(index);
  return item === 0x5b ? bracketMayOpen(text, index + 1, starts) : namespaceFirsts.includes(item);
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

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

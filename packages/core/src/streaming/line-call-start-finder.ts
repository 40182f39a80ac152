/**
 * Finds, in an answer's shown text read chunk by chunk, the lines after prose that may open a named tool call: a
 * line whose first character may start one (`[`, a callee's first letter). Lines inside a code fence are never
 * such lines: a call in a fenced block after prose is an example, shown as written. Line starts and fences are
 * followed across chunks, so each character is looked at once.
 *
 * Why not `CodeSpanTracker`, which follows code for the markup filter and recovery: it counts any run of three
 * backticks as a fence, anywhere in a line, so it must see every chunk; this finder is asked only when a chunk
 * holds a line start (prose within a line costs one newline test), and counts fences only where Markdown opens
 * them, at a line start. One rule for both is still to be chosen (it would change what recovery reads as code).
 */
export class LineCallStartFinder {
  readonly #openings: ReadonlySet<number>;
  /** The next character read starts a line (after the backticks already counted in `#ticks`). */
  #atLineStart = false;
  /** Backticks read at the start of the current line, while fewer than a fence's three. */
  #ticks = 0;
  #inFence = false;
  /** The next line start was already decided (held and released): it is not found again. */
  #skipNext = false;

  /** `openings`: the characters a call may start with. */
  constructor(openings: ReadonlySet<number>) {
    this.#openings = openings;
  }

  /** Forgets the answer read so far. */
  reset(): void {
    this.#atLineStart = false;
    this.#ticks = 0;
    this.#inFence = false;
    this.#skipNext = false;
  }

  /**
   * The text next read starts at a line start whose call was decided (the held text, released): its fences are
   * counted, its first line is not found again.
   */
  restartDecided(): void {
    this.#atLineStart = true;
    this.#ticks = 0;
    this.#skipNext = true;
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
    let ticks = this.#atLineStart ? this.#ticks : 0;
    for (;;) {
      while (index < text.length && ticks < 3 && text.charCodeAt(index) === 0x60) {
        ticks++;
        index++;
      }
      if (index >= text.length && ticks < 3) {
        this.#atLineStart = true;
        this.#ticks = ticks;
        return -1;
      }
      if (ticks === 3) this.#inFence = !this.#inFence;
      else if (
        ticks === 0 &&
        !this.#skipNext &&
        !this.#inFence &&
        this.#openings.has(text.charCodeAt(index))
      ) {
        this.#atLineStart = true;
        this.#ticks = 0;
        return index;
      }
      this.#skipNext = false;
      ticks = 0;
      const newline = text.indexOf('\n', index);
      if (newline < 0) {
        this.#atLineStart = false;
        this.#ticks = 0;
        return -1;
      }
      index = newline + 1;
    }
  }
}

/**
 * Follows Markdown code in streamed text: inline code between backticks (it ends at a line break at the latest)
 * and fenced blocks between runs of three or more backticks. A tool-call marker inside code is a mention
 * (`` `<tool_call>` ``, a fenced example), not a call. Each character is looked at once, and text without
 * backticks outside code is skipped with a native search.
 */
export class CodeSpanTracker {
  #run = 0;
  #inline = false;
  #fence = false;
  #fencesOpened = 0;

  /** Moves over `text[from, to)`, which the reader sees. */
  advance(text: string, from = 0, to = text.length): void {
    let index = from;
    while (index < to) {
      if (this.#run === 0 && !this.#inline) {
        const tick = text.indexOf('`', index);
        if (tick < 0 || tick >= to) return;
        index = tick;
      }
      const code = text.charCodeAt(index);
      if (code === 0x60) this.#run++;
      else {
        if (this.#run > 0) this.#endRun();
        if (code === 0x0a) this.#inline = false;
      }
      index++;
    }
  }

  /** Whether the next (non-backtick) character is inside code. */
  get inCode(): boolean {
    if (this.#run > 0) this.#endRun();
    return this.#inline || this.#fence;
  }

  /** Whether the next (non-backtick) character is inside inline code (not inside a fenced block). */
  get inInlineCode(): boolean {
    if (this.#run > 0) this.#endRun();
    return this.#inline && !this.#fence;
  }

  /** How many fenced blocks opened so far: tells the block the next character is in from the one before. */
  get fencesOpened(): number {
    if (this.#run > 0) this.#endRun();
    return this.#fencesOpened;
  }

  #endRun(): void {
    if (this.#run >= 3) {
      this.#fence = !this.#fence;
      if (this.#fence) this.#fencesOpened++;
    } else if (!this.#fence) this.#inline = !this.#inline;
    this.#run = 0;
  }
}

/**
 * Tells, chunk by chunk and in linear time, when streamed text has formed one complete JSON object or array
 * (brackets balanced outside strings). Used to end a native tool call as soon as its arguments are complete,
 * because OpenAI-style streams only mark the end of all calls, at the end of the stream.
 */
export class JsonValueCompletion {
  #depth = 0;
  #inString = false;
  #escaped = false;
  #started = false;
  #complete = false;
  #invalid = false;

  /** Feeds the next piece; returns true once the first top-level object or array has closed. */
  push(text: string): boolean {
    if (this.#complete) return true;
    if (this.#invalid) return false;
    for (let position = 0; position < text.length; position += 1) {
      const character = text.charCodeAt(position);
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (character === 0x5c) this.#escaped = true;
        else if (character === 0x22) this.#inString = false;
        continue;
      }
      if (!this.#started && character !== 0x7b && character !== 0x5b) {
        if (character === 0x20 || character === 0x0a || character === 0x0d || character === 0x09) continue;
        // Text before any bracket (a scalar, a double-encoded string, garbage): the end of the stream decides.
        this.#invalid = true;
        return false;
      }
      if (character === 0x22) {
        this.#inString = true;
      } else if (character === 0x7b || character === 0x5b) {
        this.#started = true;
        this.#depth += 1;
      } else if (character === 0x7d || character === 0x5d) {
        this.#depth -= 1;
        if (this.#depth === 0) {
          this.#complete = true;
          return true;
        }
      }
    }
    return false;
  }
}

import { StringDecoder } from 'node:string_decoder';

/**
 * Collects one output stream up to a byte cap. Bytes past the cap are counted and dropped, so a run that prints
 * forever cannot grow the service's memory; `text()` ends with a note saying how much was cut.
 */
export class CappedOutput {
  readonly #maxBytes: number;
  readonly #decoder = new StringDecoder('utf8');
  readonly #parts: string[] = [];
  #keptBytes = 0;
  #omittedBytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Adds a chunk; returns the decoded text that was kept (empty once the cap is reached). */
  push(chunk: Buffer): string {
    const room = this.#maxBytes - this.#keptBytes;
    const kept = room >= chunk.length ? chunk : chunk.subarray(0, Math.max(0, room));
    this.#omittedBytes += chunk.length - kept.length;
    this.#keptBytes += kept.length;
    const text = kept.length > 0 ? this.#decoder.write(kept) : '';
    if (text) this.#parts.push(text);
    return text;
  }

  /** Bytes dropped because of the cap. */
  get omittedBytes(): number {
    return this.#omittedBytes;
  }

  /** Everything kept, plus a truncation note when something was dropped. */
  text(): string {
    const rest = this.#decoder.end();
    if (rest) this.#parts.push(rest);
    const text = this.#parts.join('');
    return this.#omittedBytes > 0
      ? `${text}\n[output truncated: ${this.#omittedBytes} bytes omitted]\n`
      : text;
  }
}

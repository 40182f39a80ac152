import { createParser, type EventSourceParser } from 'eventsource-parser';

/** One server-sent event's `data`, and its bytes as they came when they can be sent on unchanged. */
export interface SseEvent {
  readonly data: string;
  /**
   * The event's bytes as the upstream wrote them, when they are one `data:` line and the blank line after it (what
   * every OpenAI-compatible server writes): sending them on needs no decoding and no re-encoding. Otherwise
   * undefined, and a relay writes the event anew from `data`.
   */
  readonly raw: Buffer | undefined;
}

/** The general parser, for a stream that uses CR line ends. */
interface Fallback {
  readonly parser: EventSourceParser;
  readonly decoder: TextDecoder;
  readonly events: string[];
}

const LF = 0x0a;
const CR = 0x0d;
const BLANK_LINE = Buffer.from('\n\n');

/**
 * Splits a stream of server-sent events into their `data` as bytes arrive, without decoding text that only goes
 * back out: an event is found as bytes, and only its data is decoded (an event ends at ASCII bytes, so a character
 * split across reads never is). Follows the SSE rules: `data` lines joined with newlines, comments and other fields
 * skipped, an event with no `data` line not dispatched, a leading byte-order mark dropped, an unfinished event at the
 * end dropped. A stream that uses CR line ends (rare) goes through `eventsource-parser` from the point it is seen,
 * with no `raw` bytes.
 */
export class SseEventReader {
  /** Reads that hold the start of an event not yet ended (kept apart until it ends: no copy per read). */
  readonly #pending: Buffer[] = [];
  #pendingLength = 0;
  #first = true;
  #fallback: Fallback | undefined;

  /** Reads the next bytes; returns the events they ended, in order. */
  read(chunk: Buffer): SseEvent[] {
    if (this.#first && chunk.length > 0) {
      this.#first = false;
      // A byte-order mark is dropped; one split across reads is left to the fallback's decoder.
      if (chunk[0] === 0xef) {
        if (chunk.length >= 3 && chunk[1] === 0xbb && chunk[2] === 0xbf) chunk = chunk.subarray(3);
        else this.#startFallback();
      }
    }
    if (this.#fallback === undefined && chunk.includes(CR)) this.#startFallback();
    if (this.#fallback !== undefined) return this.#readFallback(chunk);
    let bytes = chunk;
    if (this.#pending.length > 0) {
      const last = this.#pending[this.#pending.length - 1] as Buffer;
      if (!(last[last.length - 1] === LF && chunk[0] === LF) && !chunk.includes(BLANK_LINE)) {
        this.#pending.push(chunk);
        this.#pendingLength += chunk.length;
        return [];
      }
      bytes = Buffer.concat([...this.#pending, chunk]);
      this.#pending.length = 0;
      this.#pendingLength = 0;
    }
    // Made with its first event: most reads end one event, and a one-element literal is the smallest array.
    let events: SseEvent[] | undefined;
    let start = 0;
    while (start < bytes.length) {
      // A blank line where an event would start ends an event with no fields: nothing to dispatch.
      if (bytes[start] === LF) {
        start += 1;
        continue;
      }
      // The event ends at the first line feed that another follows (one look-up for a one-line event).
      let end = bytes.indexOf(LF, start);
      while (end !== -1 && bytes[end + 1] !== LF) end = bytes.indexOf(LF, end + 1);
      if (end === -1) {
        this.#pending.push(bytes.subarray(start));
        this.#pendingLength = bytes.length - start;
        break;
      }
      const event = eventOf(bytes, start, end);
      if (event !== undefined) {
        if (events === undefined) events = [event];
        else events.push(event);
      }
      start = end + 2;
    }
    return events ?? [];
  }

  #startFallback(): void {
    const events: string[] = [];
    const parser = createParser({ onEvent: (event) => events.push(event.data) });
    const decoder = new TextDecoder();
    this.#fallback = { parser, decoder, events };
    // The bytes of the event under way start at an event's start, so they decode and parse from there.
    for (const pending of this.#pending.splice(0)) parser.feed(decoder.decode(pending, { stream: true }));
    this.#pendingLength = 0;
  }

  #readFallback(chunk: Buffer): SseEvent[] {
    const fallback = this.#fallback as Fallback;
    fallback.parser.feed(fallback.decoder.decode(chunk, { stream: true }));
    return fallback.events.splice(0).map((data) => ({ data, raw: undefined }));
  }
}

// The event whose lines run from `start` to the line feed at `end` (the blank line's is at `end + 1`).
function eventOf(bytes: Buffer, start: number, end: number): SseEvent | undefined {
  if (startsWithField(bytes, start, end) && bytes.indexOf(LF, start) === end) {
    // One `data` line: what servers write for every event.
    const valueStart = valueStartOf(bytes, start + 4);
    // A read that holds just this event (the usual case) is sent on as it is: no view made of it.
    const raw = start === 0 && end + 2 === bytes.length ? bytes : bytes.subarray(start, end + 2);
    return { data: bytes.toString('utf8', valueStart, end), raw };
  }
  let data: string | undefined;
  let lineStart = start;
  while (lineStart <= end) {
    const lineEnd = bytes.indexOf(LF, lineStart);
    if (startsWithField(bytes, lineStart, lineEnd)) {
      const value = bytes.toString('utf8', valueStartOf(bytes, lineStart + 4), lineEnd);
      data = data === undefined ? value : `${data}\n${value}`;
    }
    lineStart = lineEnd + 1;
  }
  return data === undefined ? undefined : { data, raw: undefined };
}

// Whether the line is a `data` field: the name, then a colon or the line's end (a field with an empty value).
// Byte by byte: `Buffer.compare` costs more in argument checks than four reads.
function startsWithField(bytes: Buffer, start: number, lineEnd: number): boolean {
  const after = start + 4;
  if (after > lineEnd) return false;
  if (
    bytes[start] !== 0x64 ||
    bytes[start + 1] !== 0x61 ||
    bytes[start + 2] !== 0x74 ||
    bytes[start + 3] !== 0x61
  )
    return false;
  return after === lineEnd || bytes[after] === 0x3a;
}

// A field's value starts after its colon and one space, if there is one.
function valueStartOf(bytes: Buffer, colon: number): number {
  if (bytes[colon] !== 0x3a) return colon;
  return bytes[colon + 1] === 0x20 ? colon + 2 : colon + 1;
}

/** An event carrying `data`, written anew: one `data:` line per line of it, then the blank line. */
export function sseData(data: string): string {
  return data.includes('\n') ? `data: ${data.split('\n').join('\ndata: ')}\n\n` : `data: ${data}\n\n`;
}

import { recoveryWork } from './recovery-work.ts';

/** `checkJsonSyntax`: the text is strict JSON. */
export const JSON_VALID = -1;
/** `checkJsonSyntax`: not strict JSON, but only for defects `parseJsonTolerant` repairs. */
export const JSON_REPAIRABLE = -2;

// What the checker expects next.
const Expect = { Value: 0, KeyOrEnd: 1, Key: 2, Colon: 3, CommaOrEnd: 4 } as const;
type Expect = (typeof Expect)[keyof typeof Expect];

/** What {@link readJsonValue} found at one position. */
export const JsonRead = {
  /** One complete value; `end` is the index after it. */
  Complete: 0,
  /** The range ended inside the value; a repair could close it (unless it stopped right after a key). */
  CutOff: 1,
  /** A syntax error at `end`; `openStarts` holds the containers still open there (they all fail there too). */
  Error: 2,
} as const;
/** One of the {@link JsonRead} outcomes. */
export type JsonRead = (typeof JsonRead)[keyof typeof JsonRead];

/** The outcome of {@link readJsonValue}; one object reused for every read (reads happen by the thousand). */
export interface JsonReadResult {
  kind: JsonRead;
  /** After the value (`Complete`), the index of the error (`Error`), the range's end (`CutOff`). */
  end: number;
  /**
   * `Complete`: strict JSON would reject it only for defects `parseJsonTolerant` repairs. (Not meaningful for the
   * other outcomes: raw control characters in long strings are looked for only once a value is complete.)
   */
  repairable: boolean;
  /**
   * Start indexes of the containers open at the error, outermost first: the first `openCount` entries (valid
   * until the next read).
   */
  openStarts: Int32Array;
  openCount: number;
}

const result: JsonReadResult = {
  kind: JsonRead.Error,
  end: 0,
  repairable: false,
  openStarts: new Int32Array(64),
  openCount: 0,
};

/**
 * Reads the one JSON value that starts at `start`, stopping where it ends, at the first syntax error or at
 * `end`, without allocating. Work is the distance to the stop: a candidate in prose that is not JSON shows it
 * within a few characters, so a scanner trying every bracket stays cheap, and a read never looks past the
 * value it reads.
 */
export function readJsonValue(text: string, start: number, end: number): JsonReadResult {
  // Start indexes of the open containers (a typed array: no allocation, no length bookkeeping per read); the
  // bracket at that index tells objects from arrays.
  let stack = result.openStarts;
  let depth = 0;
  result.repairable = false;
  uncheckedCount = 0;
  let expect: Expect = Expect.Value;
  let index = start;
  while (index < end) {
    const code = text.charCodeAt(index);
    if (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09) {
      index++;
      continue;
    }
    switch (expect) {
      case Expect.KeyOrEnd:
      case Expect.Key:
        if (code === 0x22) {
          const after = skipString(text, index + 1, end);
          if (after === -2) return finish(text, depth, JsonRead.CutOff, end, start);
          if (after < 0) result.repairable = true;
          index = after < 0 ? -after - 3 : after;
          expect = Expect.Colon;
          break;
        }
        if (code !== 0x7d) return finish(text, depth, JsonRead.Error, index, start);
        // `{}`, or `{"a": 1,}` (a trailing comma, repaired).
        if (expect === Expect.Key) result.repairable = true;
        depth--;
        expect = Expect.CommaOrEnd;
        index++;
        break;
      case Expect.Value: {
        if (code === 0x22) {
          const after = skipString(text, index + 1, end);
          if (after === -2) return finish(text, depth, JsonRead.CutOff, end, start);
          if (after < 0) result.repairable = true;
          index = after < 0 ? -after - 3 : after;
          expect = Expect.CommaOrEnd;
          break;
        }
        if (code === 0x7b) {
          if (depth === stack.length) stack = grow(stack);
          stack[depth++] = index;
          expect = Expect.KeyOrEnd;
          index++;
          break;
        }
        if (code === 0x5b) {
          if (depth === stack.length) stack = grow(stack);
          stack[depth++] = index;
          index++;
          // `[]`: an array may close at once.
          const next = skipBlank(text, index, end);
          if (text.charCodeAt(next) === 0x5d) {
            depth--;
            expect = Expect.CommaOrEnd;
            index = next + 1;
          }
          break;
        }
        if (code === 0x5d && depth > 0 && text.charCodeAt(stack[depth - 1]!) === 0x5b) {
          // `[1,]`: a trailing comma, repaired.
          result.repairable = true;
          depth--;
          expect = Expect.CommaOrEnd;
          index++;
          break;
        }
        const after = skipLiteral(text, index, end);
        if (after < 0) return finish(text, depth, JsonRead.Error, index, start);
        index = after;
        expect = Expect.CommaOrEnd;
        break;
      }
      case Expect.Colon:
        if (code !== 0x3a) return finish(text, depth, JsonRead.Error, index, start);
        expect = Expect.Value;
        index++;
        break;
      case Expect.CommaOrEnd: {
        const open = depth > 0 ? text.charCodeAt(stack[depth - 1]!) : undefined;
        if (open === undefined) return finish(text, depth, JsonRead.Error, index, start);
        if (code === 0x2c) expect = open === 0x7b ? Expect.Key : Expect.Value;
        else if ((code === 0x7d && open === 0x7b) || (code === 0x5d && open === 0x5b)) depth--;
        else return finish(text, depth, JsonRead.Error, index, start);
        index++;
        break;
      }
    }
    if (depth === 0 && expect === Expect.CommaOrEnd)
      return finish(text, depth, JsonRead.Complete, index, start);
  }
  // Cut off at `end`: a repair closes what is open, but not a key left without its value.
  if (expect === Expect.Colon || depth === 0) return finish(text, depth, JsonRead.Error, end, start);
  return finish(text, depth, JsonRead.CutOff, end, start);
}

function grow(stack: Int32Array): Int32Array {
  const larger = new Int32Array(stack.length * 2);
  larger.set(stack);
  result.openStarts = larger;
  return larger;
}

function finish(text: string, depth: number, kind: JsonRead, end: number, start: number): JsonReadResult {
  // Only a complete value needs to know whether its strings hold raw control characters.
  if (kind === JsonRead.Complete && !result.repairable && holdsControlCharacter(text, uncheckedCount)) {
    result.repairable = true;
  }
  result.openCount = depth;
  result.kind = kind;
  result.end = end;
  recoveryWork.characters += end - start + 1;
  return result;
}

/**
 * Checks, without allocating, whether `text[start, end)` is one JSON value, stopping at the first error: the
 * JSON scan tries many candidates in prose, and a candidate that is not JSON usually shows it within a few
 * characters, so rejecting it here costs that much instead of a thrown `JSON.parse` and a repair pass over the
 * whole candidate. Returns {@link JSON_VALID}, {@link JSON_REPAIRABLE} (trailing commas, raw control characters
 * in strings, a value cut off at `end`) or the index of the first error.
 */
export function checkJsonSyntax(text: string, start: number, end: number): number {
  const read = readJsonValue(text, start, end);
  if (read.kind === JsonRead.CutOff) return JSON_REPAIRABLE;
  if (read.kind === JsonRead.Error) return read.end;
  const rest = skipBlank(text, read.end, end);
  if (rest < end) return rest;
  return read.repairable ? JSON_REPAIRABLE : JSON_VALID;
}

function skipBlank(text: string, from: number, end: number): number {
  let index = from;
  while (index < end) {
    const code = text.charCodeAt(index);
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) break;
    index++;
  }
  return index;
}

/**
 * Skips a string whose opening quote is before `from`: the index after its closing quote; `-2` when the text
 * ends inside it; `-(end + 3)` (encoded so the caller can continue after it) when it holds raw control
 * characters, which the repair escapes or removes.
 */
function skipString(text: string, from: number, end: number): number {
  let control = false;
  let index = from;
  // Short strings (keys, most values) by the loop; past that, where the range runs to the end of the text (a
  // native search cannot be told to stop earlier), the rest up to a closing quote with no escape before it is
  // passed over natively, and its control characters are looked for only if the value turns out complete.
  let native = end === text.length ? from + shortString : end;
  while (index < end) {
    if (index >= native) {
      native = end;
      plainStringRest.lastIndex = index;
      if (plainStringRest.test(text)) {
        const after = plainStringRest.lastIndex;
        markUnchecked(index, after - 1);
        return control ? -after - 3 : after;
      }
    }
    const code = text.charCodeAt(index);
    if (code === 0x22) return control ? -(index + 1) - 3 : index + 1;
    if (code === 0x5c) index += 2;
    else {
      if (code < 0x20) control = true;
      index++;
    }
  }
  return -2;
}

// Characters of a string read by the loop before the native search takes over.
const shortString = 6;
// The rest of a string without escapes, up to and with its closing quote.
const plainStringRest = /[^"\\]*"/y;

// String ranges of the current read passed over natively, not yet checked for raw control characters.
let unchecked = new Int32Array(32);
let uncheckedCount = 0;

function markUnchecked(from: number, to: number): void {
  if (uncheckedCount + 2 > unchecked.length) {
    const larger = new Int32Array(unchecked.length * 2);
    larger.set(unchecked);
    unchecked = larger;
  }
  unchecked[uncheckedCount++] = from;
  unchecked[uncheckedCount++] = to;
}

function holdsControlCharacter(text: string, count: number): boolean {
  for (let range = 0; range < count; range += 2) {
    const to = unchecked[range + 1]!;
    for (let index = unchecked[range]!; index < to; index++) if (text.charCodeAt(index) < 0x20) return true;
  }
  return false;
}

function skipLiteral(text: string, from: number, end: number): number {
  const code = text.charCodeAt(from);
  if (code === 0x74) return text.startsWith('true', from) ? from + 4 : -1;
  if (code === 0x66) return text.startsWith('false', from) ? from + 5 : -1;
  if (code === 0x6e) return text.startsWith('null', from) ? from + 4 : -1;
  if (code !== 0x2d && (code < 0x30 || code > 0x39)) return -1;
  let index = from + 1;
  while (index < end) {
    const next = text.charCodeAt(index);
    const isNumberPart =
      (next >= 0x30 && next <= 0x39) ||
      next === 0x2e ||
      next === 0x65 ||
      next === 0x45 ||
      next === 0x2b ||
      next === 0x2d;
    if (!isNumberPart) break;
    index++;
  }
  return index;
}

import { checkJsonSyntax } from './check-json-syntax.ts';
import { isPlainObject } from './parse-tool-arguments.ts';
import { readPythonLiteral } from './python-literal.ts';
import { skipWhitespace } from './text-search.ts';
import { parseJsonTolerant, type TolerantJsonResult } from './tolerant-json-parse.ts';

/** A JSON object or array found in text, with its range `[start, end)`. */
export interface ScannedJsonValue {
  readonly start: number;
  readonly end: number;
  readonly value: unknown;
}

/** Options for {@link scanJsonValues}. */
export interface ScanJsonValuesOptions {
  readonly from?: number;
  readonly to?: number;
  /** A candidate longer than this is abandoned (default 8 MiB). */
  readonly maxValueLength?: number;
  /** Only a value starting at `from` (after whitespace) counts; used after a dialect's `[ARGS]` and the like. */
  readonly anchored?: boolean;
  /** Skip values that contain no object at all (arrays of scalars): callers looking for calls need objects. */
  readonly objectsOnly?: boolean;
}

const defaultMaxValueLength = 8 * 1024 * 1024;

/**
 * Finds the outermost JSON objects and arrays in free text, left to right, in time linear in the text length.
 *
 * One pass pairs every bracket with its closer (a stack of open brackets; strings are tracked inside brackets,
 * and a line break ends a string, since JSON strings never span lines — a stray quote in prose cannot hide the
 * rest of the text). Candidates are then tried outermost first: a pair that parses is a value and nothing inside
 * it is tried again; a pair that does not parse (prose in braces, `{{...}}`) lets the pairs inside it be tried,
 * drawing on a work budget of ten times the text length, after which failed candidates are skipped whole. So a
 * long run of unbalanced braces before the real value costs one pass, never a rescan per brace. Objects written
 * as Python literals (`{'name': 'x', 'ok': True}`) count too. A value cut off by the end of the text is repaired
 * once (see `parseJsonTolerant`). Values nested inside a found value are not reported separately: callers walk
 * the parsed value.
 */
export function scanJsonValues(text: string, options: ScanJsonValuesOptions = {}): ScannedJsonValue[] {
  const found: ScannedJsonValue[] = [];
  forEachJsonValue(text, options, (value) => {
    found.push(value);
  });
  return found;
}

/**
 * {@link scanJsonValues} that hands each value to `visit` as soon as it is parsed instead of collecting them,
 * so a long answer full of JSON data does not keep every parsed value alive (less garbage-collector work).
 */
export function forEachJsonValue(
  text: string,
  options: ScanJsonValuesOptions,
  visit: (value: ScannedJsonValue) => void,
): void {
  const from = Math.max(0, options.from ?? 0);
  const to = Math.min(options.to ?? text.length, text.length);
  if (to <= from) return;
  if (options.anchored) {
    visitAnchored(text, from, to, options.maxValueLength ?? defaultMaxValueLength, visit);
    return;
  }
  const maxValueLength = options.maxValueLength ?? defaultMaxValueLength;
  const objectsOnly = options.objectsOnly === true;
  let budget = 10 * (to - from) + 65_536;
  // Fast path: each candidate is scanned from its bracket to its closer, which in ordinary answers is short.
  // A candidate that never closes, or a spent budget, means unbalanced text: the rest goes to the paired scan,
  // which is linear whatever the text.
  let position = from;
  while (position < to) {
    const start = nextBracket(text, position, to);
    if (start < 0) return;
    const closeAt = closingIndex(text, start, Math.min(to, start + maxValueLength));
    if (closeAt === -1 || budget <= 0) {
      visitPaired(text, start, to, { maxValueLength, objectsOnly, budget: Math.max(budget, 65_536) }, visit);
      return;
    }
    budget -= closeAt < 0 ? -closeAt - start : closeAt - start;
    if (closeAt < 0) {
      // A closer that does not match: not a value here; one may start inside.
      position = start + 1;
      continue;
    }
    const end = closeAt + 1;
    if (objectsOnly && text.charCodeAt(start) === 0x5b) {
      const object = text.indexOf('{', start);
      if (object < 0 || object >= end) {
        position = end;
        continue;
      }
    }
    const value = parseCandidate(text, start, end);
    budget -= candidateCost;
    if (value.ok) {
      visit({ start, end, value: value.value });
      position = end;
    } else position = start + 1;
  }
}

/**
 * The index of the bracket that closes the one at `start` (strings skipped), `-1` when the text ends first, or
 * `-(index + 2)` for a closer that does not match at `index`.
 */
function closingIndex(text: string, start: number, limit: number): number {
  const closers: number[] = [];
  let inString = false;
  let escaped = false;
  for (let index = start; index < limit; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (escaped) escaped = false;
      else if (code === 0x5c) escaped = true;
      else if (code === 0x22) inString = false;
      continue;
    }
    if (code === 0x22) inString = true;
    else if (code === 0x7b) closers.push(0x7d);
    else if (code === 0x5b) closers.push(0x5d);
    else if (code === 0x7d || code === 0x5d) {
      if (closers.pop() !== code) return -(index + 2);
      if (closers.length === 0) return index;
    }
  }
  return -1;
}

function nextBracket(text: string, from: number, to: number): number {
  const curly = text.indexOf('{', from);
  const square = text.indexOf('[', from);
  const index = curly < 0 ? square : square < 0 ? curly : Math.min(curly, square);
  return index >= to ? -1 : index;
}

/** The paired scan: brackets paired in one pass, candidates tried outermost first. */
function visitPaired(
  text: string,
  from: number,
  to: number,
  options: { readonly maxValueLength: number; readonly objectsOnly: boolean; readonly budget: number },
  visit: (value: ScannedJsonValue) => void,
): void {
  const { maxValueLength } = options;
  const { ends, unclosed } = pairBrackets(text, from, to);
  let repairAt = -1;
  for (const open of unclosed) {
    if (text.charCodeAt(skipWhitespace(text, open + 1, to)) === 0x22) {
      repairAt = open;
      break;
    }
  }
  let budget = options.budget;
  let next = from;
  // Only brackets can start a value: jump from one to the next with native searches.
  let nextCurly = text.indexOf('{', from);
  let nextSquare = text.indexOf('[', from);
  while (true) {
    if (nextCurly >= 0 && nextCurly < next) nextCurly = text.indexOf('{', next);
    if (nextSquare >= 0 && nextSquare < next) nextSquare = text.indexOf('[', next);
    const index = nextCurly < 0 ? nextSquare : nextSquare < 0 ? nextCurly : Math.min(nextCurly, nextSquare);
    if (index < 0 || index >= to) break;
    next = index + 1;
    if (index === repairAt) {
      // The first value that runs into the end of the text: repaired once (every later start is inside it).
      const parsed = parseJsonTolerant(text.slice(index, to));
      if (parsed.ok && typeof parsed.value === 'object' && parsed.value !== null) {
        visit({ start: index, end: to, value: parsed.value });
        return;
      }
      continue;
    }
    const end = ends[index - from]!;
    if (end === 0 || end - index > maxValueLength) continue;
    if (options.objectsOnly && text.charCodeAt(index) === 0x5b) {
      const object = text.indexOf('{', index);
      if (object < 0 || object >= end) {
        // A balanced array without any object (`[1, 2, 3]`, `[the docs]`) cannot hold a call: skip it unparsed.
        next = end;
        continue;
      }
    }
    if (budget <= 0) {
      next = end;
      continue;
    }
    const value = parseCandidate(text, index, end);
    budget -= candidateCost;
    if (value.ok) {
      visit({ start: index, end, value: value.value });
      next = end;
    } else if (budget <= 0) {
      next = end;
    }
  }
}

/** Pairs brackets in one pass: `ends[i - from]` is the end of the value opened at `i` (0: never closed). */
function pairBrackets(text: string, from: number, to: number): { ends: Int32Array; unclosed: number[] } {
  const ends = new Int32Array(to - from);
  const stack: number[] = [];
  let inString = false;
  let escaped = false;
  for (let index = from; index < to; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (escaped) escaped = false;
      else if (code === 0x5c) escaped = true;
      else if (code === 0x22 || code === 0x0a) inString = false;
      continue;
    }
    if (code === 0x22) {
      if (stack.length > 0) inString = true;
    } else if (code === 0x7b || code === 0x5b) {
      stack.push(index);
    } else if (code === 0x7d || code === 0x5d) {
      const opener = code === 0x7d ? 0x7b : 0x5b;
      while (stack.length > 0) {
        const open = stack.pop()!;
        if (text.charCodeAt(open) === opener) {
          ends[open - from] = index + 1;
          break;
        }
      }
    }
  }
  return { ends, unclosed: stack };
}

// The work the last `parseCandidate` did, in characters (a prose candidate is rejected at its first error).
let candidateCost = 0;

function parseCandidate(text: string, start: number, end: number): TolerantJsonResult {
  candidateCost = end - start;
  if (text.charCodeAt(start) === 0x7b && text.charCodeAt(skipWhitespace(text, start + 1, end)) === 0x27) {
    const read = readPythonLiteral(text.slice(start, end), 0);
    return read && read.end === end - start && isPlainObject(read.value)
      ? { ok: true, value: read.value }
      : notJson;
  }
  const verdict = checkJsonSyntax(text, start, end);
  if (verdict >= 0) {
    candidateCost = verdict - start + 1;
    return notJson;
  }
  return parseJsonTolerant(text.slice(start, end));
}

/** Only a value starting at `from` (after whitespace) counts. */
function visitAnchored(
  text: string,
  from: number,
  to: number,
  maxValueLength: number,
  visit: (value: ScannedJsonValue) => void,
): void {
  const start = skipWhitespace(text, from, to);
  const first = text.charCodeAt(start);
  if (first !== 0x7b && first !== 0x5b) return;
  const closers: number[] = [];
  let inString = false;
  let escaped = false;
  const limit = Math.min(to, start + maxValueLength);
  for (let index = start; index < limit; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (escaped) escaped = false;
      else if (code === 0x5c) escaped = true;
      else if (code === 0x22) inString = false;
      continue;
    }
    if (code === 0x22) inString = true;
    else if (code === 0x7b) closers.push(0x7d);
    else if (code === 0x5b) closers.push(0x5d);
    else if (code === 0x7d || code === 0x5d) {
      if (closers.pop() !== code) return;
      if (closers.length === 0) {
        const parsed = parseCandidate(text, start, index + 1);
        if (parsed.ok) visit({ start, end: index + 1, value: parsed.value });
        return;
      }
    }
  }
  if (limit < to) return;
  const parsed = parseJsonTolerant(text.slice(start, to));
  if (parsed.ok && typeof parsed.value === 'object' && parsed.value !== null)
    visit({ start, end: to, value: parsed.value });
}

const notJson = { ok: false } as const;

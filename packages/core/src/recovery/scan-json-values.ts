import { checkJsonSyntax, JsonRead, readJsonValue } from './check-json-syntax.ts';
import { isPlainObject } from './parse-tool-arguments.ts';
import { readPythonLiteral } from './python-literal.ts';
import { recoveryWork } from './recovery-work.ts';
import { isWhitespaceCode, skipWhitespace } from './text-search.ts';
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
  /**
   * No value starting at or after this index is tried (default: `to`); values starting before it are read in
   * full. For text whose rest is already claimed: the scan goes left to right, so what it would do from there
   * on changes nothing before it.
   */
  readonly stopAt?: number;
  /**
   * Where the scan goes on when a value would start at `start` (default: it is tried). For text partly claimed
   * already: a candidate inside a claimed range returns that range's end and the range is passed over unread.
   */
  readonly resumeAt?: (start: number) => number;
}

const defaultMaxValueLength = 8 * 1024 * 1024;

/**
 * Finds the outermost JSON objects and arrays in free text, left to right, in time linear in the text length.
 *
 * Every bracket is a candidate, read by `readJsonValue` only up to its first error (prose in brackets shows it
 * within a few characters). The containers still open at an error fail at that same error, so they are never
 * read again, and past the last `}` or `]` nothing can be complete: a long run of unbalanced braces costs one
 * read, never a rescan per brace (a work budget hands contrived text to a one-pass bracket pairing). A value
 * that parses is reported and nothing inside it is tried again. Objects written as Python literals
 * (`{'name': 'x', 'ok': True}`) count too. A value cut off by the end of the text is repaired once (see
 * `parseJsonTolerant`). Values nested inside a found value are not reported separately: callers walk the
 * parsed value.
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
  const stopAt = Math.min(to, options.stopAt ?? to);
  const workAtStart = recoveryWork.characters;
  const budget = 16 * (to - from) + 65_536;
  // Every bracket is a candidate, read by `readJsonValue` only as far as its first error. The containers still
  // open at an error fail at that same error (JSON inside a container does not depend on what is outside it), so
  // they are never read again: a run of unbalanced braces costs one read, not one per brace. Brackets inside a
  // string of a failed read are still tried (a stray quote in prose must not hide a call written after it). A
  // spent budget (only contrived text gets there) hands the rest to the one-pass bracket pairing. Past the last
  // `}` and `]` no value can be complete: only one value cut off by the end is tried there (repaired once).
  const lastCloser = Math.max(text.lastIndexOf('}', to - 1), text.lastIndexOf(']', to - 1));
  let skipped: Uint8Array | undefined;
  let skippedEnd = 0;
  let repairTried = false;
  let position = from;
  let nextCurly = text.indexOf('{', from);
  let nextSquare = text.indexOf('[', from);
  try {
    while (true) {
      let start: number;
      if (objectsOnly) {
        // Only a bracket that `mayHoldObject` can accept is a candidate: a native search passes over the others
        // (most brackets of prose, and of hostile text). It may look past `to` for the follower, so it is checked.
        objectCandidate.lastIndex = position;
        if (!objectCandidate.test(text)) return;
        start = objectCandidate.lastIndex - 2;
        while (isWhitespaceCode(text.charCodeAt(start))) start--;
      } else {
        if (nextCurly >= 0 && nextCurly < position) nextCurly = text.indexOf('{', position);
        if (nextSquare >= 0 && nextSquare < position) nextSquare = text.indexOf('[', position);
        start = nextCurly < 0 ? nextSquare : nextSquare < 0 ? nextCurly : Math.min(nextCurly, nextSquare);
      }
      if (start < 0 || start >= stopAt) return;
      position = start + 1;
      if (options.resumeAt !== undefined) {
        const resume = options.resumeAt(start);
        if (resume > start) {
          position = resume;
          continue;
        }
      }
      if (skipped !== undefined && skipped[start - from] === 1) continue;
      if (objectsOnly && !mayHoldObject(text, start, to)) continue;
      if (start > lastCloser) {
        if (!repairTried) visitCutOff(text, start, to, maxValueLength, visit);
        return;
      }
      if (recoveryWork.characters - workAtStart > budget) {
        visitPaired(text, start, to, { maxValueLength, objectsOnly, budget: 65_536, stopAt }, visit);
        return;
      }
      const limit = Math.min(to, start + maxValueLength);
      if (isPythonDictStart(text, start, limit)) {
        const read = readPythonLiteral(text.slice(start, limit), 0);
        recoveryWork.characters += read ? read.end : 1;
        if (read && isPlainObject(read.value)) {
          visit({ start, end: start + read.end, value: read.value });
          position = start + read.end;
        }
        continue;
      }
      const read = readJsonValue(text, start, limit);
      if (read.kind === JsonRead.Complete) {
        const end = read.end;
        if (objectsOnly && text.charCodeAt(start) === 0x5b) {
          const object = text.indexOf('{', start);
          if (object < 0 || object >= end) {
            // An array without any object (`[1, 2, 3]`) cannot hold a call: skipped unparsed.
            position = end;
            continue;
          }
        }
        const parsed = parseRead(text, start, end, read.repairable);
        if (parsed.ok) {
          visit({ start, end, value: parsed.value });
          position = end;
        }
        continue;
      }
      if (read.openCount > 1) {
        skipped ??= takeSkipped(to - from);
        for (let open = 0; open < read.openCount; open++) skipped[read.openStarts[open]! - from] = 1;
        skippedEnd = Math.max(skippedEnd, read.openStarts[read.openCount - 1]! - from + 1);
      }
      if (read.kind === JsonRead.CutOff && limit === to && !repairTried) {
        // The first value that runs into the end of the text (a stream cut off mid-call): repaired once. The
        // complete values inside it are still tried after it (a caller keeps the outer one when it holds a call):
        // a long run of unclosed `{"a": [` before a real call must not bury the call in one repaired value.
        repairTried = true;
        recoveryWork.characters += to - start;
        const parsed = parseJsonTolerant(text.slice(start, to));
        if (parsed.ok && typeof parsed.value === 'object' && parsed.value !== null)
          visit({ start, end: to, value: parsed.value });
      }
    }
  } finally {
    if (skipped !== undefined) giveBackSkipped(skipped, skippedEnd);
  }
}

// The marks of one scan (bracket starts known to fail), kept for the next scan: a fresh array the size of the
// text on every long scan costs the allocation and the clearing of all of it, and garbage-collector work.
let spareSkipped: Uint8Array | undefined;

function takeSkipped(length: number): Uint8Array {
  const spare = spareSkipped;
  if (spare === undefined || spare.length < length) return new Uint8Array(length);
  // Taken while in use: a scan started meanwhile (from a visit) gets an array of its own.
  spareSkipped = undefined;
  return spare;
}

// Kept only up to this size, so one huge answer does not hold its marks' memory for good.
const maximumSpareSkipped = 4 * 1024 * 1024;

function giveBackSkipped(skipped: Uint8Array, end: number): void {
  if (skipped.length > maximumSpareSkipped) return;
  skipped.fill(0, 0, end);
  if (spareSkipped === undefined || spareSkipped.length < skipped.length) spareSkipped = skipped;
}

// A bracket `mayHoldObject` may accept: `{` before a quote, `[` before a bracket (whitespace between).
const objectCandidate = /\{[ \t\n\r]*["']|\[[ \t\n\r]*[[{]/g;

/**
 * Whether the bracket at `start` can open a value holding an object with keys: `{` must be followed by a key
 * (a quote), `[` by an object or another array. Rejects most brackets of prose without a read.
 */
function mayHoldObject(text: string, start: number, to: number): boolean {
  const next = text.charCodeAt(skipWhitespace(text, start + 1, to));
  if (text.charCodeAt(start) === 0x7b) return next === 0x22 || next === 0x27;
  return next === 0x7b || next === 0x5b;
}

/** The value at `start` runs into `to` (no closer follows): repaired as a value cut off by the end, if it is one. */
function visitCutOff(
  text: string,
  start: number,
  to: number,
  maxValueLength: number,
  visit: (value: ScannedJsonValue) => void,
): void {
  if (to - start > maxValueLength || readJsonValue(text, start, to).kind !== JsonRead.CutOff) return;
  recoveryWork.characters += to - start;
  const parsed = parseJsonTolerant(text.slice(start, to));
  if (parsed.ok && typeof parsed.value === 'object' && parsed.value !== null)
    visit({ start, end: to, value: parsed.value });
}

function isPythonDictStart(text: string, start: number, limit: number): boolean {
  return text.charCodeAt(start) === 0x7b && text.charCodeAt(skipWhitespace(text, start + 1, limit)) === 0x27;
}

function parseRead(text: string, start: number, end: number, repairable: boolean): TolerantJsonResult {
  const slice = text.slice(start, end);
  if (!repairable) {
    try {
      return { ok: true, value: JSON.parse(slice) };
    } catch {
      // an escape or number form the reader lets through: the tolerant parse decides
    }
  }
  recoveryWork.characters += end - start;
  return parseJsonTolerant(slice);
}

/** The paired scan: brackets paired in one pass, candidates tried outermost first. */
function visitPaired(
  text: string,
  from: number,
  to: number,
  options: {
    readonly maxValueLength: number;
    readonly objectsOnly: boolean;
    readonly budget: number;
    readonly stopAt: number;
  },
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
    if (index < 0 || index >= options.stopAt) break;
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

/** Only a value starting at `from` (after whitespace) counts; the read stops where that value ends. */
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
  const limit = Math.min(to, start + maxValueLength);
  const read = isPythonDictStart(text, start, limit) ? undefined : readJsonValue(text, start, limit);
  // A Python literal: single-quoted keys, or JSON keys with a single-quoted value where JSON fails (Glaive's
  // `"arguments": '{"city": "Oslo"}'`).
  if (read === undefined || (read.kind === JsonRead.Error && text.charCodeAt(read.end) === 0x27)) {
    const python = readPythonLiteral(text.slice(start, limit), 0);
    recoveryWork.characters += python ? python.end : 1;
    if (python && isPlainObject(python.value)) visit({ start, end: start + python.end, value: python.value });
    return;
  }
  if (read.kind === JsonRead.Complete) {
    const parsed = parseRead(text, start, read.end, read.repairable);
    if (parsed.ok) visit({ start, end: read.end, value: parsed.value });
    return;
  }
  if (read.kind !== JsonRead.CutOff || limit < to) return;
  recoveryWork.characters += to - start;
  const parsed = parseJsonTolerant(text.slice(start, to));
  if (parsed.ok && typeof parsed.value === 'object' && parsed.value !== null)
    visit({ start, end: to, value: parsed.value });
}

const notJson = { ok: false } as const;

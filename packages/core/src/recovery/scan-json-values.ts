import { skipWhitespace } from './text-search.ts';
import { parseJsonTolerant } from './tolerant-json-parse.ts';

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
 * One pass tracks brackets and strings from each `{`/`[`. When a candidate is not valid JSON (prose in braces,
 * `{{...}}` doubled braces, a string that never closes), scanning restarts one character after its start so a
 * valid value inside is still found — but those restarts draw on a work budget of ten times the text length;
 * once it is spent the scanner skips past failed candidates instead, which keeps the worst case linear.
 * A value cut off by the end of the text is repaired once (see `parseJsonTolerant`). Values nested inside a
 * found value are not reported separately: callers walk the parsed value.
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
  const to = Math.min(options.to ?? text.length, text.length);
  const maxValueLength = options.maxValueLength ?? defaultMaxValueLength;
  let budget = 10 * (to - (options.from ?? 0)) + 65_536;
  let repairedTruncatedValue = false;
  let foundAny = false;
  const closers: number[] = [];
  let position = options.from ?? 0;
  if (options.anchored) {
    position = skipWhitespace(text, position, to);
    const code = text.charCodeAt(position);
    if (code !== 0x7b && code !== 0x5b) return;
  }
  while (position < to) {
    const start = findOpeningBracket(text, position, to);
    if (start < 0) break;
    if (options.anchored && foundAny) break;
    closers.length = 0;
    let inString = false;
    let escaped = false;
    let containsObject = false;
    let end = -1;
    let stoppedAt = to;
    let index = start;
    const limit = Math.min(to, start + maxValueLength);
    for (; index < limit; index++) {
      const code = text.charCodeAt(index);
      if (inString) {
        if (escaped) escaped = false;
        else if (code === 0x5c) escaped = true;
        else if (code === 0x22) inString = false;
        continue;
      }
      if (code === 0x22) inString = true;
      else if (code === 0x7b) {
        closers.push(0x7d);
        containsObject = true;
      } else if (code === 0x5b) closers.push(0x5d);
      else if (code === 0x7d || code === 0x5d) {
        if (closers.pop() !== code) {
          stoppedAt = index;
          break;
        }
        if (closers.length === 0) {
          end = index + 1;
          break;
        }
      }
    }
    budget -= index - start + 1;
    if (end > 0 && !containsObject && options.objectsOnly) {
      // A balanced array without any object (`[1, 2, 3]`, `[the docs]`) cannot hold a call: skip it unparsed.
      position = end;
      continue;
    }
    if (end > 0) {
      budget -= end - start;
      const parsed = startsLikeJson(text, start, end) ? parseJsonTolerant(text.slice(start, end)) : notJson;
      if (parsed.ok) {
        foundAny = true;
        visit({ start, end, value: parsed.value });
        position = end;
        continue;
      }
      if (options.anchored) break;
      position = budget > 0 ? start + 1 : end;
      continue;
    }
    if (index >= to && !repairedTruncatedValue && closers.length > 0) {
      // Only the first value that runs into the end of the text is repaired: every later start is inside it.
      repairedTruncatedValue = true;
      budget -= to - start;
      const parsed = parseJsonTolerant(text.slice(start, to));
      if (parsed.ok && typeof parsed.value === 'object' && parsed.value !== null) {
        visit({ start, end: to, value: parsed.value });
        break;
      }
    }
    if (options.anchored) break;
    position = budget > 0 ? start + 1 : Math.max(stoppedAt, index) + 1;
  }
}

const notJson = { ok: false } as const;

/**
 * A cheap look at the first token inside a bracket, so the common prose cases (`{ return x; }`, `[the docs]`)
 * are rejected without a `JSON.parse` that throws (an exception costs far more than the scan).
 */
function startsLikeJson(text: string, start: number, end: number): boolean {
  const inner = skipWhitespace(text, start + 1, end);
  const code = text.charCodeAt(inner);
  if (code === 0x22) return true;
  if (text.charCodeAt(start) === 0x7b) return code === 0x7d || code === 0x7b;
  if (code === 0x5d || code === 0x7b || code === 0x5b || code === 0x2d || (code >= 0x30 && code <= 0x39))
    return true;
  return text.startsWith('true', inner) || text.startsWith('false', inner) || text.startsWith('null', inner);
}

function findOpeningBracket(text: string, from: number, to: number): number {
  for (let index = from; index < to; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x7b || code === 0x5b) return index;
  }
  return -1;
}

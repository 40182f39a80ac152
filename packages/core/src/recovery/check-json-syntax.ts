/** `checkJsonSyntax`: the text is strict JSON. */
export const JSON_VALID = -1;
/** `checkJsonSyntax`: not strict JSON, but only for defects `parseJsonTolerant` repairs. */
export const JSON_REPAIRABLE = -2;

// What the checker expects next.
const Expect = { Value: 0, KeyOrEnd: 1, Key: 2, Colon: 3, CommaOrEnd: 4 } as const;
type Expect = (typeof Expect)[keyof typeof Expect];

/**
 * Checks, without allocating, whether `text[start, end)` is one JSON value, stopping at the first error: the
 * JSON scan tries many candidates in prose, and a candidate that is not JSON usually shows it within a few
 * characters, so rejecting it here costs that much instead of a thrown `JSON.parse` and a repair pass over the
 * whole candidate. Returns {@link JSON_VALID}, {@link JSON_REPAIRABLE} (trailing commas, raw control characters
 * in strings, a value cut off at `end`) or the index of the first error.
 */
export function checkJsonSyntax(text: string, start: number, end: number): number {
  // Open containers: 0x7b for objects, 0x5b for arrays.
  const stack: number[] = [];
  let expect: Expect = Expect.Value;
  let repairable = false;
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
          if (after === -2) return JSON_REPAIRABLE;
          if (after < 0) repairable = true;
          index = after < 0 ? -after - 3 : after;
          expect = Expect.Colon;
          break;
        }
        if (code !== 0x7d) return index;
        // `{}`, or `{"a": 1,}` (a trailing comma, repaired).
        if (expect === Expect.Key) repairable = true;
        stack.pop();
        expect = Expect.CommaOrEnd;
        index++;
        break;
      case Expect.Value: {
        if (code === 0x22) {
          const after = skipString(text, index + 1, end);
          if (after === -2) return JSON_REPAIRABLE;
          if (after < 0) repairable = true;
          index = after < 0 ? -after - 3 : after;
          expect = Expect.CommaOrEnd;
          break;
        }
        if (code === 0x7b) {
          stack.push(0x7b);
          expect = Expect.KeyOrEnd;
          index++;
          break;
        }
        if (code === 0x5b) {
          stack.push(0x5b);
          index++;
          // `[]`: an array may close at once.
          const next = skipBlank(text, index, end);
          if (text.charCodeAt(next) === 0x5d) {
            stack.pop();
            expect = Expect.CommaOrEnd;
            index = next + 1;
          }
          break;
        }
        if (code === 0x5d && stack[stack.length - 1] === 0x5b) {
          // `[1,]`: a trailing comma, repaired.
          repairable = true;
          stack.pop();
          expect = Expect.CommaOrEnd;
          index++;
          break;
        }
        const after = skipLiteral(text, index, end);
        if (after < 0) return index;
        index = after;
        expect = Expect.CommaOrEnd;
        break;
      }
      case Expect.Colon:
        if (code !== 0x3a) return index;
        expect = Expect.Value;
        index++;
        break;
      case Expect.CommaOrEnd: {
        const open = stack[stack.length - 1];
        if (open === undefined) return index;
        if (code === 0x2c) expect = open === 0x7b ? Expect.Key : Expect.Value;
        else if ((code === 0x7d && open === 0x7b) || (code === 0x5d && open === 0x5b)) stack.pop();
        else return index;
        index++;
        if (stack.length === 0) {
          const rest = skipBlank(text, index, end);
          return rest >= end ? (repairable ? JSON_REPAIRABLE : JSON_VALID) : rest;
        }
        break;
      }
    }
    if (stack.length === 0 && expect === Expect.CommaOrEnd) {
      const rest = skipBlank(text, index, end);
      return rest >= end ? (repairable ? JSON_REPAIRABLE : JSON_VALID) : rest;
    }
  }
  // Cut off at `end`: the repair closes what is open (unless it stopped right after a key).
  return expect === Expect.Colon || stack.length === 0 ? end : JSON_REPAIRABLE;
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
  while (index < end) {
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

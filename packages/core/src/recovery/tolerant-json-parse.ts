import { checkJsonSyntax, JSON_VALID } from './check-json-syntax.ts';

/** The outcome of a tolerant parse: a value, or nothing usable. */
export type TolerantJsonResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false };

const failed: TolerantJsonResult = { ok: false };
const controlEscapes: Record<number, string> = { 9: '\\t', 10: '\\n', 13: '\\r' };

/**
 * `JSON.parse` that also accepts the defects models often produce, repaired in one linear pass and only after
 * a strict parse failed: raw control characters inside strings (line breaks and tabs escaped, the others
 * removed), trailing commas before `}`/`]`, and a value cut off at the end (an open string is closed, a
 * dangling `,` dropped, missing `}`/`]` appended). Anything else fails. Never throws.
 */
export function parseJsonTolerant(text: string): TolerantJsonResult {
  // A syntax check first: text that is no JSON (most candidates found in prose) fails at its first error,
  // without a thrown exception or a repair pass over all of it.
  const verdict = checkJsonSyntax(text, 0, text.length);
  if (verdict >= 0) return failed;
  if (verdict === JSON_VALID) {
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch {
      // an escape or number form the check lets through: the repair pass decides
    }
  }
  const repaired = repairJson(text);
  if (repaired === undefined || repaired === text) return failed;
  try {
    return { ok: true, value: JSON.parse(repaired) };
  } catch {
    return failed;
  }
}

function repairJson(text: string): string | undefined {
  const closers: string[] = [];
  let output = '';
  let segmentStart = 0;
  let inString = false;
  let escaped = false;
  for (let index = 0; index < text.length; index++) {
    const character = text[index]!;
    if (inString) {
      const code = text.charCodeAt(index);
      if (code < 0x20) {
        // A raw control character inside a string: line breaks and tabs are escaped, the rest removed.
        output += text.slice(segmentStart, index) + (controlEscapes[code] ?? '');
        segmentStart = index + 1;
        escaped = false;
      } else if (escaped) escaped = false;
      else if (character === '\\') escaped = true;
      else if (character === '"') inString = false;
      continue;
    }
    if (character === '"') inString = true;
    else if (character === '{') closers.push('}');
    else if (character === '[') closers.push(']');
    else if (character === '}' || character === ']') {
      if (closers.pop() !== character) return undefined;
    } else if (character === ',') {
      let next = index + 1;
      while (next < text.length && isJsonWhitespace(text.charCodeAt(next))) next++;
      const following = text[next];
      if (following === '}' || following === ']' || following === undefined) {
        output += text.slice(segmentStart, index);
        segmentStart = index + 1;
      }
    }
  }
  output += text.slice(segmentStart);
  if (inString) {
    if (escaped) output = output.slice(0, -1);
    output += '"';
  }
  const trimmed = output.trimEnd();
  if (trimmed.endsWith(':')) return undefined;
  let tail = '';
  for (let index = closers.length - 1; index >= 0; index--) tail += closers[index];
  return trimmed + tail;
}

function isJsonWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

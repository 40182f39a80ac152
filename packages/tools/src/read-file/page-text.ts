/** One page of a text: the range `[start, end)` and its characters. */
export interface TextPage {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/**
 * Cuts `count` characters (UTF-16 code units, as JavaScript counts string length) from `start`, moving each
 * boundary that falls inside a surrogate pair so an emoji or other astral character is never cut in half: the
 * start moves back onto the pair, the end moves back before it (or past it when the page would be empty).
 */
export function pageText(options: {
  readonly text: string;
  readonly start: number;
  readonly count: number;
}): TextPage {
  const { text } = options;
  let start = Math.min(Math.max(0, options.start), text.length);
  if (start > 0 && isLowSurrogateAfterHigh(text, start)) start -= 1;
  let end = Math.min(text.length, start + Math.max(1, options.count));
  if (end < text.length && isLowSurrogateAfterHigh(text, end)) {
    end = end - 1 > start ? end - 1 : end + 1;
  }
  return { start, end, text: text.slice(start, end) };
}

/** True when index `at` is the low half of a pair whose high half is at `at - 1`. */
function isLowSurrogateAfterHigh(text: string, at: number): boolean {
  const low = text.charCodeAt(at);
  const high = text.charCodeAt(at - 1);
  return low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff;
}

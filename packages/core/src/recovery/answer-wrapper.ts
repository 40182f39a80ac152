import { CodeSpanTracker } from './code-span-tracker.ts';
import { escapeRegExp, lowerCaseAscii } from './text-search.ts';
import type { ToolCallMarkupMarker } from './tool-call-markup-marker.ts';

// A whole text's see-through answer wrapper (Granite 3.3's `<response>…</response>`, see
// `ToolCallMarkupMarker.wrapsAnswer`): the same rule the answer filter applies while the text streams.

interface WrapperPattern {
  /** The blanks and closed thinking blocks before a wrapper's opening (group 1), and the opening (group 2). */
  readonly opening: RegExp;
  /** Each wrapper's closes, by its lower-cased opening. */
  readonly closes: ReadonlyMap<string, readonly string[]>;
}

const patterns = new WeakMap<readonly ToolCallMarkupMarker[], WrapperPattern | null>();

/**
 * `text` without the wrapper that opens its answer (after blanks and thinking) and the first of its closes after
 * it outside code; what is between stays. A wrapper opening elsewhere is text, and so is a close with no
 * such opening before it. Unclosed, only its opening goes.
 */
export function withoutAnswerWrapper(text: string, markers: readonly ToolCallMarkupMarker[]): string {
  const pattern = wrapperPatternOf(markers);
  if (pattern === null) return text;
  const opening = pattern.opening.exec(text);
  if (opening === null) return text;
  const from = opening[0].length;
  const head = text.slice(0, opening[1]!.length);
  const closes = pattern.closes.get(opening[2]!.toLowerCase()) ?? [];
  const close = firstClose(text, from, closes);
  if (close === undefined) return head + text.slice(from);
  return head + text.slice(from, close.at) + text.slice(close.at + close.length);
}

function firstClose(
  text: string,
  from: number,
  closes: readonly string[],
): { at: number; length: number } | undefined {
  // ASCII only, so that positions in the lower-cased text are positions in the text.
  const lower = lowerCaseAscii(text);
  // A close inside code (inline or fenced) is a mention, as the answer filter reads it while the text streams.
  const code = new CodeSpanTracker();
  let read = from;
  const candidates = closes
    .map(lowerCaseAscii)
    .flatMap((needle) => positionsOf(lower, needle, from).map((at) => ({ at, length: needle.length })))
    .sort((left, right) => left.at - right.at);
  for (const candidate of candidates) {
    if (candidate.at < read) continue;
    code.advance(text, read, candidate.at);
    read = candidate.at;
    if (!code.inCode) return candidate;
  }
  return undefined;
}

function positionsOf(text: string, needle: string, from: number): number[] {
  const positions: number[] = [];
  for (let at = text.indexOf(needle, from); at >= 0; at = text.indexOf(needle, at + needle.length))
    positions.push(at);
  return positions;
}

function wrapperPatternOf(markers: readonly ToolCallMarkupMarker[]): WrapperPattern | null {
  let pattern = patterns.get(markers);
  if (pattern !== undefined) return pattern;
  const wrappers = markers.filter((marker) => marker.wrapsAnswer === true);
  pattern = null;
  if (wrappers.length > 0) {
    // Only closed thinking blocks: an unclosed one runs to the end of the text, and no wrapper follows it.
    const thinking = markers
      .filter(
        (marker) => marker.reasoning === true && marker.opensAnswer === true && marker.closes.length > 0,
      )
      .map(
        (marker) => `${escapeRegExp(marker.open)}[\\s\\S]*?(?:${marker.closes.map(escapeRegExp).join('|')})`,
      );
    const lead = thinking.length > 0 ? `(?:\\s*(?:${thinking.join('|')}))*\\s*` : '\\s*';
    const opens = wrappers.map((marker) => escapeRegExp(marker.open)).join('|');
    pattern = {
      opening: new RegExp(`^(${lead})(${opens})`, 'i'),
      closes: new Map(wrappers.map((marker) => [marker.open.toLowerCase(), marker.closes])),
    };
  }
  patterns.set(markers, pattern);
  return pattern;
}

import type { LocatedToolCall } from './extracted-tool-call.ts';

/**
 * Text the answer filter cut out of the shown answer while streaming because recovery read calls in it: a line
 * or fence after prose, the held start of the answer, a markup block.
 */
export interface TextCutWhileStreaming {
  /** The text cut, as the model wrote it. */
  readonly text: string;
  /**
   * The calls recovery read in it, at positions in `text`; undefined when the filter did not read them (a markup
   * block plainly shaped like a call is hidden whole).
   */
  readonly calls: readonly LocatedToolCall[] | undefined;
}

/**
 * The calls recovered at the end of an answer with those of the text the answer filter cut while streaming that
 * they leave out, in order of appearance. The end reads the whole `text` with a model profile's dialects first,
 * alone (`located`): when they find a call elsewhere, a line the filter cut because recovery read a call in it
 * with every dialect is not read again, and its text would be neither shown nor called. `readAll` reads `text`
 * with every dialect; its calls that lie in a cut text and that no call of `located` overlaps are added. Calls
 * recovery drops over the whole text with every dialect (a draft in the thinking, a call after an imitated
 * result) stay dropped. A cut text not found in `text` (markup hidden inside it) counts by its calls' names and
 * arguments. Reads the text again only when a cut text holds no call of `located`.
 */
export function withCallsCutWhileStreaming(
  text: string,
  located: readonly LocatedToolCall[],
  cuts: readonly TextCutWhileStreaming[],
  readAll: (text: string) => readonly LocatedToolCall[],
): LocatedToolCall[] {
  const overlapsFound = (start: number, end: number) =>
    located.some((found) => found.start < end && found.end > start);
  const ranges: [start: number, end: number][] = [];
  const unplaced: LocatedToolCall[] = [];
  let cursor = 0;
  for (const cut of cuts) {
    // Cuts come in the order they were made: a markup block is cut as it closes, before the lines of its chunk.
    let at = text.indexOf(cut.text, cursor);
    if (at < 0) at = text.indexOf(cut.text);
    if (at < 0) {
      unplaced.push(...(cut.calls ?? []));
      continue;
    }
    cursor = at + cut.text.length;
    const spans: readonly { start: number; end: number }[] = cut.calls ?? [
      { start: 0, end: cut.text.length },
    ];
    if (spans.some((span) => !overlapsFound(at + span.start, at + span.end)))
      ranges.push([at, at + cut.text.length]);
  }
  if (ranges.length === 0 && unplaced.length === 0) return [...located];
  const missing = readAll(text).filter(
    (call) =>
      !overlapsFound(call.start, call.end) &&
      (ranges.some(([start, end]) => call.start < end && call.end > start) ||
        unplaced.some((cut) => sameCall(cut, call))),
  );
  if (missing.length === 0) return [...located];
  // A stable sort keeps the calls of one range (an array of calls) in their written order.
  return [...located, ...missing].sort((left, right) => left.start - right.start);
}

function sameCall(left: LocatedToolCall, right: LocatedToolCall): boolean {
  return left.name === right.name && JSON.stringify(left.arguments) === JSON.stringify(right.arguments);
}

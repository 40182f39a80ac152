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
 * The calls recovered at the end of an answer (`located`, read over the whole `text`) with those of the text
 * the answer filter cut while streaming that they leave out, in order of appearance. The end tries a model
 * profile's dialects first, alone: when they find a call elsewhere, a line the filter cut because recovery read
 * a call from it alone (with every dialect) is not read again, and its text would be neither shown nor called.
 * A cut call counts as recovered when a call of `located` overlaps where its text stands in `text`; a cut text
 * not found there (markup hidden inside it) counts as recovered when a call of the same name and arguments is.
 * `extract` reads the calls of a cut block the filter did not read (the same options as the end's reading).
 */
export function withCallsCutWhileStreaming(
  text: string,
  located: readonly LocatedToolCall[],
  cuts: readonly TextCutWhileStreaming[],
  extract: (text: string) => readonly LocatedToolCall[],
): LocatedToolCall[] {
  if (cuts.length === 0) return [...located];
  const missing: LocatedToolCall[] = [];
  let cursor = 0;
  for (const cut of cuts) {
    // Cuts come in the order they were made: a markup block is cut as it closes, before the lines of its chunk.
    let at = text.indexOf(cut.text, cursor);
    if (at < 0) at = text.indexOf(cut.text);
    if (at >= 0) cursor = at + cut.text.length;
    const covered = (call: LocatedToolCall) =>
      at >= 0
        ? located.some((found) => found.start < at + call.end && found.end > at + call.start)
        : located.some((found) => sameCall(found, call));
    // A block the filter hid unread is read only when no call the end found lies in it (most blocks are).
    if (
      cut.calls === undefined &&
      at >= 0 &&
      covered({ name: '', arguments: {}, start: 0, end: cut.text.length })
    )
      continue;
    const calls = cut.calls ?? extract(cut.text);
    for (const call of calls) {
      if (covered(call)) continue;
      const start = at >= 0 ? at + call.start : text.length;
      missing.push({ ...call, start, end: at >= 0 ? at + call.end : text.length });
    }
  }
  if (missing.length === 0) return [...located];
  // A stable sort keeps the calls of one range (an array of calls) in their written order.
  return [...located, ...missing].sort((left, right) => left.start - right.start);
}

function sameCall(left: LocatedToolCall, right: LocatedToolCall): boolean {
  return left.name === right.name && JSON.stringify(left.arguments) === JSON.stringify(right.arguments);
}

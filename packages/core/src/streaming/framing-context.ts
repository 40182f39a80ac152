import { exampleFramingWindow } from '../recovery/quoted-example.ts';

/**
 * The prose before a line held after prose, as recovery's reading of that line needs it: the framing window
 * before it. The finder holds only outside fences, so when the window cut a fence in half (it holds an odd number
 * of fences that open their line, the first of them a close), it starts after that close: else the held line would
 * read as code. A fence within a line (`Action: ```json`) stays: recovery reads the line after it as code too.
 */
export function framingContext(recent: string): string {
  const context = recent.length > exampleFramingWindow ? recent.slice(-exampleFramingWindow) : recent;
  let fences = 0;
  let firstEnd = -1;
  for (let at = context.indexOf('```'); at >= 0; at = context.indexOf('```', at + 3)) {
    const lineStart = context.lastIndexOf('\n', at - 1) + 1;
    // As Markdown and the line finder read a fence: after up to three spaces (a tab indents code).
    if (at - lineStart > 3 || !/^ *$/.test(context.slice(lineStart, at))) continue;
    if (fences++ === 0) firstEnd = context.indexOf('\n', at);
  }
  if (fences % 2 === 0) return context;
  return firstEnd < 0 ? '' : context.slice(firstEnd + 1);
}

/** Whether the shown text ends inside a code fence opened within a line (an odd number of fences in it). */
export function opensCode(recent: string): boolean {
  const context = framingContext(recent);
  let fences = 0;
  for (let at = context.indexOf('```'); at >= 0; at = context.indexOf('```', at + 3)) fences++;
  return fences % 2 === 1;
}

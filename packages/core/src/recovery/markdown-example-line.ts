import { recoveryWork } from './recovery-work.ts';
import type { TextScan } from './text-scan.ts';

/**
 * Whether the position `at` lies on a line that Markdown shows as a quotation, where a named call is an example,
 * not a call: the answer filter shows such a line as written (`LineCallStartFinder`), so recovery must not read
 * a call from it either. Such a line is
 * - a line of an indented code block after prose: indented four columns or more (a tab counts to the next
 *   multiple of four), unless it is the answer's start (only whitespace before it: a model that indents its
 *   call means it) or goes on a call list or markup (`[`, `,`, `;`, `(` or a tag's `>` ends the text before
 *   it: `[\n    get_weather(…),\n    get_time(…)\n]` is one call list written over lines);
 * - a block quote's line: `>` opens it (after up to three spaces) before the call, as in `> get_weather(…)` or
 *   a Python prompt `>>> get_weather(…)`.
 * A line inside a code fence is neither: the fence rules decide its calls (see `isQuotedExample`).
 */
export function onMarkdownExampleLine(text: string, at: number, scan?: TextScan): boolean {
  const cursor = scan?.memo<LineCursor>('markdown-example-line', () => ({
    at: 0,
    lineStart: 0,
    example: -1,
  }));
  if (cursor === undefined || at < cursor.at) {
    const lineStart = lineStartWithin(text, at, lookBack);
    return lineStart >= 0 && isExampleLine(text, lineStart, scan);
  }
  // Calls are read in order: only the text since the last one is searched for a line start (linear overall),
  // back from the call to the first newline (a parser's first call far into the text reads one line, not all).
  let index = at - 1;
  for (; index >= cursor.at; index--) {
    if (text.charCodeAt(index) !== 0x0a) continue;
    cursor.lineStart = index + 1;
    cursor.example = -1;
    break;
  }
  recoveryWork.characters += at - Math.max(index, cursor.at);
  cursor.at = at;
  if (cursor.example < 0) cursor.example = isExampleLine(text, cursor.lineStart, scan) ? 1 : 0;
  return cursor.example === 1;
}

/** The line of the last call looked at, and whether it is an example line (-1: not known yet). */
interface LineCursor {
  at: number;
  lineStart: number;
  example: number;
}

function isExampleLine(text: string, lineStart: number, scan: TextScan | undefined): boolean {
  let index = lineStart;
  let columns = 0;
  for (; index < text.length && columns < 4; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x20) columns++;
    else if (code === 0x09) columns = 4;
    else break;
  }
  if (columns < 4) {
    if (text.charCodeAt(index) !== 0x3e) return false;
  } else {
    // Blank lines before it are walked back over once (bounded): each line's walk stops at the prose before.
    let before = lineStart - 1;
    while (before >= 0 && lineStart - before < lookBack && isBlank(text.charCodeAt(before))) before--;
    recoveryWork.characters += lineStart - before;
    if (before < 0 || isBlank(text.charCodeAt(before)) || '[,;(>'.includes(text[before]!)) return false;
  }
  return !insideFence(text, lineStart, scan);
}

// Backward walks without a scan are bounded, so that many calls on one long line cost linear time: a line start
// farther back is not looked for (the call is read as before).
const lookBack = 1024;

/** The start of the line `at` is on, looked for at most `limit` characters back; -1 when not found there. */
function lineStartWithin(text: string, at: number, limit: number): number {
  const stop = Math.max(0, at - limit);
  for (let index = at - 1; index >= stop; index--) {
    if (text.charCodeAt(index) !== 0x0a) continue;
    recoveryWork.characters += at - index;
    return index + 1;
  }
  recoveryWork.characters += at - stop;
  return stop === 0 ? 0 : -1;
}

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

// Whether an odd number of fences, each opening its line (after up to three spaces), stand before `lineStart`.
function insideFence(text: string, lineStart: number, scan: TextScan | undefined): boolean {
  const fences = scan ? scan.memo('line-fences', () => lineFences(text)) : lineFences(text);
  let low = 0;
  let high = fences.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (fences[middle]! < lineStart) low = middle + 1;
    else high = middle;
  }
  return low % 2 === 1;
}

/** The positions of the code fences of `text` that open their line, as Markdown reads them. */
function lineFences(text: string): number[] {
  const fences: number[] = [];
  let at = text.indexOf('```');
  while (at >= 0) {
    const lineStart = text.lastIndexOf('\n', at - 1) + 1;
    if (at - lineStart <= 3 && /^ *$/.test(text.slice(lineStart, at))) fences.push(at);
    const lineEnd = text.indexOf('\n', at);
    if (lineEnd < 0) break;
    at = text.indexOf('```', lineEnd);
  }
  return fences;
}

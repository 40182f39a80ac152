import { exampleFramingWindow } from '../recovery/quoted-example.ts';

// Pieces of shown text kept: at least the framing window's characters when each piece is one character.
const tailPieces = 512;

/**
 * The end of an answer's shown text, kept by the answer filter for the lines it holds after prose (joined only
 * when one is decided): the last pieces shown, in a ring. A ring, not a string kept whole: storing a piece costs
 * no copy and no allocation, per chunk streamed.
 */
export class ShownTail {
  readonly #pieces: string[] = new Array<string>(tailPieces).fill('');
  #next = 0;

  /** Notes `text` as shown after what was. */
  add(text: string): void {
    if (text === '') return;
    const next = this.#next;
    this.#pieces[next] = text;
    this.#next = (next + 1) & (tailPieces - 1);
  }

  /** The end of the text shown: the framing window of a fenced example, or what the ring holds of it. */
  text(): string {
    const pieces = this.#pieces;
    let text = '';
    let at = this.#next;
    for (let count = 0; count < tailPieces && text.length < exampleFramingWindow; count++) {
      at = (at - 1) & (tailPieces - 1);
      if (pieces[at] === '') break;
      text = pieces[at] + text;
    }
    return text;
  }

  /** Forgets the text shown (a new answer starts). */
  clear(): void {
    this.#pieces.fill('');
  }
}

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

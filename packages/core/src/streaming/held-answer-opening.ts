import { isWhitespaceCode } from '../recovery/text-search.ts';

// How the text the answer filter held from the answer's start opens: where a call found in it counts as the
// answer's opening, and whether it is a list item's (which the line finder reads, not the classifier).

/** Whether `text` opens, after blanks, with what may be a list item's marker (`-`, `*`, `+`, a digit). */
export function opensWithListMarker(text: string): boolean {
  let index = 0;
  while (index < text.length && isWhitespaceCode(text.charCodeAt(index))) index++;
  const code = text.charCodeAt(index);
  return code === 0x2d || code === 0x2a || code === 0x2b || (code >= 0x30 && code <= 0x39);
}

// A call opens the answer when only whitespace, a fence opener, `[` or `print(` stand before it.
const answerOpening = /^\s*(?:```[\w-]*\s*)?(?:\[\s*|print\(\s*)?$/;

/** Whether the call at `callStart` of the held text opens the answer (the classifier's body starts at `bodyStart`). */
export function callOpensAnswer(held: string, callStart: number, bodyStart: number): boolean {
  return callStart <= bodyStart || answerOpening.test(held.slice(0, callStart));
}

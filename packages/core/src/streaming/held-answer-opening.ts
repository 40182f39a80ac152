import { isWhitespaceCode } from '../recovery/text-search.ts';

// How the text the answer filter holds from the answer's start opens: a list item (read by the line finder), a
// call that opens the answer (only blanks, a fence opener, `[` or `print(` before it), and the words a held opening
// is read against while the text may still end within them.

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

/** Whether `text` at `at` is `part`: true, 'wait' while the text ends within a prefix of it, else 'prose'. */
export function startsWithPart(text: string, at: number, part: string): true | 'wait' | 'prose' {
  const seen = text.slice(at, at + part.length);
  if (seen === part) return true;
  return part.startsWith(seen) ? 'wait' : 'prose';
}

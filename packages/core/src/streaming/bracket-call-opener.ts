import { isWhitespaceCode } from '../recovery/text-search.ts';
import { type OpensVerdict, opensMaybe, opensNo, opensYes } from './json-call-opener.ts';
import { watchedNamespace } from './markup-marker-table.ts';

// How a call may open at a `[`, a `{` or a callee's first letters, as far as a chunk shows it: the quick tests the
// line finder and the markup filter ask before anything is held (`starts`: `CallStartClassifier.namedCallStarts`).

/**
 * Whether the text of a line (not a list item's) at `at` may open a call, as far as the chunk shows it: a
 * callee's first two characters, `[` and a callee's first character, or a JSON object or list of objects (`{`,
 * `[{`), as recovery reads a bare JSON call on a line of its own. A necessary condition only, mirroring the
 * classifier's forms (the classifier decides a line held): most lines of prose that start with such a character
 * are then not held at all. What lies past the chunk's end is not known: then the line may.
 */
export function mayOpenCall(text: string, at: number, starts: ReadonlySet<number>): boolean {
  const code = text.charCodeAt(at);
  if (code === 0x7b) return true;
  if (code === 0x5b) return bracketMayOpen(text, at + 1, starts) || opensObject(text, at + 1);
  if (code === 0x3e) return recipientMayOpen(text, at, starts);
  return starts.has(code) && calleeMayStart(text, at, starts);
}

// Functionary's `>>>name` at `at`: three `>` and a callee's first character (a quote has a blank or its text after
// one or two), as far as the text shows.
function recipientMayOpen(text: string, at: number, starts: ReadonlySet<number>): boolean {
  for (let index = at + 1; index < at + 3; index++) {
    if (index >= text.length) return true;
    if (text.charCodeAt(index) !== 0x3e) return false;
  }
  return at + 3 >= text.length || starts.has(text.charCodeAt(at + 3));
}

// After `[`: whitespace, then `{`.
function opensObject(text: string, from: number): boolean {
  let index = from;
  while (index < text.length && isWhitespaceCode(text.charCodeAt(index))) index++;
  return text.charCodeAt(index) === 0x7b;
}

/**
 * Whether the `[` at `at` of a text may open a bracketed call of a tool whose callee starts as `starts` says (a
 * callee's first two characters after blanks, as far as the text shows): `[get_weather(`, not `[1]` nor a link.
 * The markup filter asks it at every `[` it meets: an ASCII character after the `[` that starts no callee (a
 * digit, most letters) is ruled out by one table look-up.
 */
export function bracketCallOpener(starts: ReadonlySet<number>): (text: string, at: number) => boolean {
  const firsts = new Uint8Array(0x80);
  for (const code of starts) if (code < 0x80) firsts[code] = 1;
  return (text, at) => {
    const code = text.charCodeAt(at + 1);
    if (code < 0x80 && firsts[code] === 0 && !isWhitespaceCode(code)) return false;
    return bracketMayOpen(text, at + 1, starts);
  };
}

// After `[`: whitespace, then a callee's start.
export function bracketMayOpen(text: string, from: number, starts: ReadonlySet<number>): boolean {
  let index = from;
  while (index < text.length && isWhitespaceCode(text.charCodeAt(index))) index++;
  if (index >= text.length) return true;
  return starts.has(text.charCodeAt(index)) && calleeMayStart(text, index, starts);
}

export function calleeMayStart(text: string, at: number, starts: ReadonlySet<number>): boolean {
  return at + 1 >= text.length || starts.has((text.charCodeAt(at) << 16) | text.charCodeAt(at + 1));
}

/**
 * How far a namespaced call at `at` within a line of prose (`functions.get_weather(`, as recovery reads it there)
 * goes, as far as the text shows: {@link watchedNamespace} and a callee's first two characters; the classifier
 * decides the rest (`functions.get_weather tool` is prose).
 */
export function namespacedCallVerdict(text: string, at: number, starts: ReadonlySet<number>): OpensVerdict {
  if (!text.startsWith(watchedNamespace, at)) return opensNo;
  const callee = at + watchedNamespace.length;
  if (callee + 1 >= text.length)
    return callee >= text.length || starts.has(text.charCodeAt(callee)) ? opensMaybe : opensNo;
  return starts.has(text.charCodeAt(callee)) && calleeMayStart(text, callee, starts) ? opensYes : opensNo;
}

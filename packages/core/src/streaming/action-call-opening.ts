import {
  isWhitespaceCode,
  readIdentifierEnd,
  skipWhitespace,
  stripFunctionsPrefix,
} from '../recovery/text-search.ts';
import { startsWithPart } from './held-answer-opening.ts';

const actionMarker = 'Action:';
const inputMarker = 'Action Input:';
const fence = '```';
/** A fence's language line is short (`json`): longer, the block is not Command R's list of calls. */
const maximumLanguageLength = 16;

/** How far the text at an `Action:` reads as a ReAct or Command R call, as far as the text shows it. */
export type ActionCallOpening =
  | 'wait'
  | 'prose'
  /**
   * A call's body starts at `bodyStart`: a JSON value (`json`), or a one-line input (`line`, a tool with one
   * parameter); `fenced`: the JSON is Command R's list of calls in a code fence, which closes after it.
   */
  | { readonly bodyStart: number; readonly json: boolean; readonly fenced: boolean };

/**
 * Reads the opening of a call written as ReAct text (LangChain's classic agents: `Action: get_weather`, then
 * `Action Input: {"city": "Oslo"}` or a plain line) or as Command R's `Action: ```json` fence of calls, at `from`,
 * as the react dialect's parser reads it (whitespace between the parts, the name possibly in backticks or after
 * `functions.`): only a declared tool's name (`names`) makes it a call. `'wait'` while the text ends before that is
 * decided, so the answer filter holds the line until it is.
 */
export function readActionCallOpening(
  held: string,
  from: number,
  names: ReadonlySet<string>,
): ActionCallOpening {
  const marker = startsWithPart(held, from, actionMarker);
  if (marker !== true) return marker;
  let index = skipWhitespace(held, from + actionMarker.length);
  if (index >= held.length) return 'wait';
  if (held.charCodeAt(index) === 0x60) {
    // `` `get_weather` `` or a fence.
    if (index + 1 >= held.length) return 'wait';
    if (held.charCodeAt(index + 1) === 0x60) return fencedList(held, index);
    index++;
  }
  const nameStart = index;
  index = readIdentifierEnd(held, nameStart);
  const name = stripFunctionsPrefix(held.slice(nameStart, index));
  if (index >= held.length) {
    for (const known of names)
      if (known.startsWith(name) || `functions.${known}`.startsWith(name)) return 'wait';
    return 'prose';
  }
  if (!names.has(name)) return 'prose';
  if (held.charCodeAt(index) === 0x60) index++;
  index = skipWhitespace(held, index);
  if (index >= held.length) return 'wait';
  const input = startsWithPart(held, index, inputMarker);
  if (input !== true) return input;
  // The input starts after blanks on its line: a JSON value, or the line itself.
  index += inputMarker.length;
  while (index < held.length && held.charCodeAt(index) !== 0x0a && isWhitespaceCode(held.charCodeAt(index)))
    index++;
  if (index >= held.length) return 'wait';
  const code = held.charCodeAt(index);
  return { bodyStart: index, json: code === 0x7b, fenced: false };
}

// Command R: `Action: ```json` newline `[{"tool_name": …, "parameters": {…}}]` newline ```` ``` ````.
function fencedList(held: string, at: number): ActionCallOpening {
  const ticks = startsWithPart(held, at, fence);
  if (ticks !== true) return ticks;
  const lineEnd = held.indexOf('\n', at + fence.length);
  if (lineEnd < 0) return held.length - at > maximumLanguageLength ? 'prose' : 'wait';
  if (lineEnd - at > maximumLanguageLength) return 'prose';
  const body = skipWhitespace(held, lineEnd + 1);
  if (body >= held.length) return 'wait';
  const code = held.charCodeAt(body);
  return code === 0x5b || code === 0x7b ? { bodyStart: body, json: true, fenced: true } : 'prose';
}

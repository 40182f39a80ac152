import type { ToolDefinition } from '@toolbus/spec';
import { coerceParameterValue } from '../coerce-parameter-value.ts';
import { endOfTurnToken } from '../end-of-turn-tokens.ts';
import type { LocatedToolCall, ToolCallTextParser } from '../extracted-tool-call.ts';
import { recoveryWork } from '../recovery-work.ts';
import { sanitizeJsonValue } from '../sanitize-string.ts';
import { createTextScan } from '../text-scan.ts';
import {
  createForwardSearch,
  type ForwardSearch,
  readIdentifierEnd,
  skipWhitespace,
} from '../text-search.ts';

const callMarker = 'call:';
const stringDelimiters = ['<|"|>', '<escape>'];
const wrappers: ReadonlyArray<readonly [string, readonly string[]]> = [
  // Gemma 4 sometimes ends the call with its end-of-turn token instead (vLLM's gemma4 fixtures).
  ['<|tool_call>', ['<tool_call|>', endOfTurnToken.gemma]],
  ['<start_function_call>', ['<end_function_call>']],
];
/** Gemma 4's thinking channel (`<|channel>thought\n…<channel|>`, its chat template's reasoning markers). */
export const gemmaThoughtChannel = Object.freeze({ open: '<|channel>', close: '<channel|>' });

/**
 * Gemma 4 `<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>}<tool_call|>` and FunctionGemma
 * `<start_function_call>call:get_weather{city:<escape>Oslo<escape>}<end_function_call>`: keys are bare, strings
 * sit between `<|"|>` (or `<escape>`) delimiters, other values are typed by the schema. The range includes
 * the wrapper tokens when they are present. Servers that strip special tokens leave `call:get_weather{city:Oslo}`:
 * a bare value runs to the next `,` or `}` and is typed by the schema (a string parameter keeps it as text); a value
 * in plain double quotes (the `<|"|>` token rendered as `"`) is a string. Lists and objects nest (`[…]`,
 * `{k:v}`). Under load Gemma 4 also writes the arguments in parentheses (`call:terminal(command:<|"|>ls<|"|>)`,
 * keys ending in `:` or `=`), a stray colon after the opening token (`<|tool_call>:call:…`) and
 * `<turn|>` for the closing token (vLLM's gemma4 parser fixtures, omlx #1846); its thinking channel
 * (`<|channel>thought…<channel|>`) is reasoning, and a call right after it (`<channel|>call:bash{…}`) is read
 * without a wrapper like any `call:` of a declared tool.
 */
export const gemmaToolCallParser: ToolCallTextParser = {
  name: 'gemma',
  markers: [
    ...wrappers.map(([open, closes]) => ({ open, closes })),
    { open: gemmaThoughtChannel.open, closes: [gemmaThoughtChannel.close], reasoning: true },
  ],
  needles: [callMarker, ...stringDelimiters],
  // Arguments always open with `{` (or `(`); `call:` (a word, found by a search of its own) is looked for only
  // when a tool's name follows it.
  detect: (text) => text.includes('{') || text.includes('('),
  parse(text: string, toolDefs: readonly ToolDefinition[], scan = createTextScan(text)): LocatedToolCall[] {
    if (!scan.mayNameToolAfter(toolDefs, callMarker)) return [];
    const tools = scan.tools(toolDefs);
    const callSearch = scan.search(callMarker, true);
    // Forward searches, so a delimiter that never closes is looked for once, not once per call.
    const colonSearch = createForwardSearch(text, ':');
    const delimiterSearches = new Map(
      stringDelimiters.map((delimiter) => [delimiter, scan.search(delimiter, true)]),
    );
    const commaSearch = createForwardSearch(text, ',');
    const quoteSearch = createForwardSearch(text, '"');
    const braceSearch = createForwardSearch(text, '}');
    const parenSearch = createForwardSearch(text, ')');
    const equalsSearch = createForwardSearch(text, '=');
    const bracketSearch = createForwardSearch(text, ']');
    // A list or an object as a value (`queries:[<|"|>a<|"|>,<|"|>b<|"|>]`, `filter:{lang:<|"|>en<|"|>}`), read
    // left to right like the top-level keys (each character once); undefined when it does not close before
    // `limit`.
    const readNested = (
      at: number,
      limit: number,
      depth: number,
    ): { value: unknown; end: number } | undefined => {
      const isList = text[at] === '[';
      const closer = isList ? ']' : '}';
      const list: unknown[] = [];
      const object: Record<string, unknown> = {};
      let cursor = skipWhitespace(text, at + 1, limit);
      while (cursor < limit) {
        if (text[cursor] === closer) return { value: isList ? list : object, end: cursor + 1 };
        let key = '';
        if (!isList) {
          const keyEnd = colonSearch.next(cursor);
          if (keyEnd < 0 || keyEnd - cursor > 256 || keyEnd >= limit) return undefined;
          key = text.slice(cursor, keyEnd).trim();
          cursor = skipWhitespace(text, keyEnd + 1, limit);
        }
        let read: { value: unknown; end: number } | undefined;
        const delimiter = stringDelimiters.find((candidate) => text.startsWith(candidate, cursor));
        if (delimiter) {
          const valueEnd = delimiterSearches.get(delimiter)!.next(cursor + delimiter.length);
          if (valueEnd < 0 || valueEnd > limit) return undefined;
          read = { value: text.slice(cursor + delimiter.length, valueEnd), end: valueEnd + delimiter.length };
        } else if (text[cursor] === '"') {
          const valueEnd = closingQuote(quoteSearch, text, cursor + 1);
          if (valueEnd < 0 || valueEnd > limit) return undefined;
          read = { value: unescapeQuoted(text.slice(cursor + 1, valueEnd)), end: valueEnd + 1 };
        } else if ((text[cursor] === '[' || text[cursor] === '{') && depth < 32) {
          read = readNested(cursor, limit, depth + 1);
          if (!read) return undefined;
        } else {
          const valueEnd = Math.min(
            nextOrEnd(commaSearch, cursor, limit),
            nextOrEnd(braceSearch, cursor, limit),
            nextOrEnd(bracketSearch, cursor, limit),
          );
          read = { value: bareValue(text.slice(cursor, valueEnd).trim()), end: valueEnd };
        }
        if (isList) list.push(read.value);
        else object[key] = read.value;
        cursor = skipWhitespace(text, read.end, limit);
        if (text[cursor] === ',') cursor = skipWhitespace(text, cursor + 1, limit);
        else if (text[cursor] !== closer) return undefined;
      }
      return undefined;
    };
    // Where the next `call:` starts: a call's keys and bare values never run into the next call, so text full of
    // unclosed calls is read once, not once per call.
    const nextCallSearch = scan.search(callMarker, true);
    const calls: LocatedToolCall[] = [];
    // A call found where the rest of the text is claimed by higher-priority dialects would be dropped.
    const claimedFrom = scan.recovered.claimedFrom(text.length);
    let position = 0;
    while (position < text.length) {
      const hit = callSearch.next(position);
      if (hit < 0 || hit >= claimedFrom) break;
      position = hit + callMarker.length;
      const nameEnd = readIdentifierEnd(text, position);
      const tool = tools.get(text.slice(position, nameEnd));
      const opener = text[nameEnd];
      if (!tool || (opener !== '{' && opener !== '(')) continue;
      // Parenthesised arguments (`call:name(key=value)`): the same grammar in another shell.
      const closer = opener === '(' ? ')' : '}';
      const closerSearch = opener === '(' ? parenSearch : braceSearch;
      const argumentsObject: Record<string, unknown> = {};
      let cursor = skipWhitespace(text, nameEnd + 1);
      let closed = false;
      const limit = nextCallOrEnd(nextCallSearch, cursor, text.length);
      while (cursor < limit && cursor - hit < 1_048_576) {
        if (text[cursor] === closer) {
          closed = true;
          cursor++;
          break;
        }
        const colon = colonSearch.next(cursor);
        const equals = closer === ')' ? equalsSearch.next(cursor) : -1;
        const keyEnd = equals >= 0 && (colon < 0 || equals < colon) ? equals : colon;
        if (keyEnd < 0 || keyEnd - cursor > 256 || keyEnd >= limit) break;
        const key = text.slice(cursor, keyEnd).trim();
        let valueStart = keyEnd + 1;
        const delimiter = stringDelimiters.find((candidate) => text.startsWith(candidate, valueStart));
        const quoted = delimiter ? -1 : skipWhitespace(text, valueStart, limit);
        if (quoted >= 0 && (text[quoted] === '[' || text[quoted] === '{')) {
          const nested = readNested(quoted, limit, 0);
          if (!nested) break;
          argumentsObject[key] = nested.value;
          cursor = nested.end;
        } else if (quoted >= 0 && text[quoted] === '"') {
          // A server that renders the `<|"|>` token as a plain quote leaves a JSON-style string.
          const valueEnd = closingQuote(quoteSearch, text, quoted + 1);
          if (valueEnd < 0 || valueEnd > limit) break;
          argumentsObject[key] = unescapeQuoted(text.slice(quoted + 1, valueEnd));
          cursor = valueEnd + 1;
        } else if (delimiter) {
          valueStart += delimiter.length;
          const valueEnd = delimiterSearches.get(delimiter)!.next(valueStart);
          // A string that runs into the next call was never closed.
          if (valueEnd < 0 || valueEnd > limit) break;
          argumentsObject[key] = text.slice(valueStart, valueEnd);
          cursor = valueEnd + delimiter.length;
        } else {
          const valueEnd = Math.min(
            nextOrEnd(commaSearch, valueStart, limit),
            nextOrEnd(closerSearch, valueStart, limit),
          );
          argumentsObject[key] = coerceParameterValue(text.slice(valueStart, valueEnd).trim(), {
            schema: tool.properties.get(key),
          });
          cursor = valueEnd;
        }
        cursor = skipWhitespace(text, cursor);
        if (text[cursor] === ',') cursor = skipWhitespace(text, cursor + 1);
      }
      recoveryWork.characters += cursor - hit;
      if (!closed) continue;
      const { start, end } = wrappedRange(text, hit, cursor);
      calls.push({
        name: tool.name,
        arguments: sanitizeJsonValue(argumentsObject) as Record<string, unknown>,
        start,
        end,
      });
      position = end;
    }
    return calls;
  },
};

/**
 * A call's range with its wrapper tokens (`<|tool_call>` … `<tool_call|>`) when they are there; a stray colon
 * between the opening token and `call:` goes with the call.
 */
function wrappedRange(text: string, hit: number, callEnd: number): { start: number; end: number } {
  let start = hit;
  let end = callEnd;
  const opened = text[hit - 1] === ':' ? hit - 1 : hit;
  for (const [open, closes] of wrappers) {
    if (text.slice(Math.max(0, opened - open.length), opened) === open) start = opened - open.length;
    const close = closes.find((candidate) => text.startsWith(candidate, end));
    if (close) end += close.length;
  }
  return { start, end };
}

// The `"` closing a string opened before `from`, past backslash-escaped ones; -1 when it never closes.
function closingQuote(search: ForwardSearch, text: string, from: number): number {
  let at = search.next(from);
  while (at >= 0 && isEscaped(text, at)) at = search.next(at + 1);
  return at;
}

function isEscaped(text: string, at: number): boolean {
  let backslashes = 0;
  for (let index = at - 1; index >= 0 && text.charCodeAt(index) === 0x5c; index--) backslashes++;
  return backslashes % 2 === 1;
}

// A bare value inside a list or an object, where no schema types it: a JSON number, boolean or null, else
// text.
function bareValue(raw: string): unknown {
  if (raw === 'true' || raw === 'false' || raw === 'null' || /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(raw))
    return JSON.parse(raw) as unknown;
  return raw;
}

function unescapeQuoted(raw: string): string {
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

function nextCallOrEnd(search: ForwardSearch, from: number, end: number): number {
  return nextOrEnd(search, from, end);
}

function nextOrEnd(search: ForwardSearch, from: number, end: number): number {
  const hit = search.next(from);
  return hit < 0 || hit > end ? end : hit;
}

import {
  callArgumentKeys,
  callBookkeepingKeys,
  callNameKeys,
  callWrapperKeys,
} from '../recovery/match-json-tool-calls.ts';
import { skipWhitespace, toolNamespacePrefixes } from '../recovery/text-search.ts';

/** How far the text at a `{` within a line of prose goes toward a JSON call (see {@link JsonCallOpener}). */
export const opensNo = 0;
/** The text ends while it may still open a call: wait for more. */
export const opensMaybe = 1;
/** It opens a call of a declared tool as far as a start can tell: the classifier and recovery decide the rest. */
export const opensYes = 2;
export type OpensVerdict = typeof opensNo | typeof opensMaybe | typeof opensYes;

// Keys a JSON call object may open with: its name (`"name"`, `"function"`, …), a wrapper (`"tool_calls"`), `"type"`,
// and keys read before the name is known (deferred): its arguments (`{"arguments": …, "name": …}`) or an id.
// `"type"` is read for its value; `"index"` opens OpenAI's streamed deltas, not a call a model writes as text.
const deferredKeys = new Set([
  ...callArgumentKeys,
  ...[...callBookkeepingKeys].filter((key) => key !== 'type' && key !== 'index'),
]);
const openingKeys: readonly string[] = [...callNameKeys, ...callWrapperKeys, 'type', ...deferredKeys];
const wrapperKeys = new Set(callWrapperKeys);
// The opening keys' first letters, by code.
const keyFirsts = new Uint8Array(0x80);
for (const key of openingKeys) keyFirsts[key.charCodeAt(0)] = 1;

/** The letters a key a JSON call opens with starts with (`n` of `"name"`): the markup filter's search meets them. */
export const jsonCallKeyFirsts = [...new Set(openingKeys.map((key) => key[0]!))].join('');
// A wrapper within a wrapper within a call: deeper nesting is data.
const maximumDepth = 3;

/**
 * Whether a `{` within a line of prose opens a JSON call of a declared tool, decided on the fewest characters:
 * `{"`, a key a call opens with (a name key, a wrapper key, or `"type": "function"`), `:`, and a quoted prefix of
 * a declared tool's name (also namespaced, `"functions.get_weather"`). Recovery reads such a call anywhere in a
 * line (the json dialect), so the answer filter holds it while it streams; anything else there is prose, ruled
 * out at the first character that cannot go on a call (`{ braces }`, `{"status": …}`, `{"name": "other"}`). A
 * necessary condition only: recovery, reading the held text after the prose shown, decides the call. Blanks may
 * stand after the brace (`{ "name"`, a pretty-printed `{\n  "name"`), and keys may be in single quotes as a Python
 * dict's are (`{'name': 'get_weather', …}`), as the markup filter's one search meets them (`callWatchingTableOf`). An object that opens with its arguments or an id (`{"arguments": …, "name": …}`)
 * is held from its first key on: the classifier reads it to its name, and releases data once its value closes.
 */
export class JsonCallOpener {
  /** Declared tools' names, also with a namespace (`functions.get_weather`). */
  readonly #names: readonly string[];

  constructor(names: Iterable<string>) {
    const plain = [...names];
    this.#names = [
      ...plain,
      ...toolNamespacePrefixes.flatMap((prefix) => plain.map((name) => prefix + name)),
    ];
  }

  /** How far the JSON object whose `{` is at `at` in `text` goes toward a call. */
  verdict(text: string, at: number): OpensVerdict {
    return this.#object(text, at, 0);
  }

  /**
   * How far a list whose `[` is at `at` goes toward a list of JSON calls (`[{"name": …}]`): no when anything but
   * blanks and `{` follows the `[`.
   */
  listVerdict(text: string, at: number): OpensVerdict {
    const inner = skipWhitespace(text, at + 1);
    if (inner >= text.length) return opensMaybe;
    return text.charCodeAt(inner) === 0x7b ? this.#object(text, inner, 0) : opensNo;
  }

  /** A JSON object at `at` (`{`): its first key and, for a name key, its value's start. */
  #object(text: string, at: number, depth: number): OpensVerdict {
    let index = skipWhitespace(text, at + 1);
    const quote = text.charCodeAt(index);
    // A key in double quotes, or in single ones as a Python dict writes it (recovery reads both).
    if (depth === 0 && index < text.length && quote !== 0x22 && quote !== 0x27) return opensNo;
    // Most braces of JSON data are ruled out by their key's first letter, unread (`{"status": …}`).
    const first = text.charCodeAt(index + 1);
    if (first < 0x80 && keyFirsts[first] === 0) return opensNo;
    const key = readQuoted(text, index);
    if (key === undefined) return index >= text.length ? opensMaybe : opensNo;
    if (key.end < 0) return openingKeys.some((known) => known.startsWith(key.text)) ? opensMaybe : opensNo;
    if (!openingKeys.includes(key.text)) return opensNo;
    index = skipWhitespace(text, key.end);
    if (index >= text.length) return opensMaybe;
    if (text.charCodeAt(index) !== 0x3a) return opensNo;
    if (deferredKeys.has(key.text)) return opensYes;
    index = skipWhitespace(text, index + 1);
    if (index >= text.length) return opensMaybe;
    const value = text.charCodeAt(index);
    if (wrapperKeys.has(key.text) || (key.text === 'function' && value === 0x7b)) {
      if (depth >= maximumDepth) return opensNo;
      if (value === 0x7b) return this.#object(text, index, depth + 1);
      if (value !== 0x5b) return opensNo;
      const inner = skipWhitespace(text, index + 1);
      if (inner >= text.length) return opensMaybe;
      return text.charCodeAt(inner) === 0x7b ? this.#object(text, inner, depth + 1) : opensNo;
    }
    const name = readQuoted(text, index);
    if (name === undefined) return opensNo;
    if (key.text === 'type') {
      if (name.end < 0) return 'function'.startsWith(name.text) ? opensMaybe : opensNo;
      return name.text === 'function' ? opensYes : opensNo;
    }
    if (name.end < 0) return this.#names.some((known) => known.startsWith(name.text)) ? opensMaybe : opensNo;
    return this.#names.includes(name.text) ? opensYes : opensNo;
  }
}

/**
 * The quoted string at `at` (`"` or `'`): its text so far, and where it ends past its closing quote (-1: the
 * text ends first); undefined when no quote opens there. An escape or a line break ends it as no key or tool
 * name: those hold neither.
 */
function readQuoted(text: string, at: number): { text: string; end: number } | undefined {
  const quote = text.charCodeAt(at);
  if (quote !== 0x22 && quote !== 0x27) return undefined;
  let index = at + 1;
  while (index < text.length && index - at < 128) {
    const code = text.charCodeAt(index);
    if (code === quote) return { text: text.slice(at + 1, index), end: index + 1 };
    if (code === 0x5c || code === 0x0a) return { text: '\u0000', end: index + 1 };
    index++;
  }
  return { text: text.slice(at + 1, index), end: index < text.length ? index + 1 : -1 };
}

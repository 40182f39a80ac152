// Most chunks of a streamed answer carry one piece of text and nothing else:
//   {"id":…,"choices":[{"index":0,"delta":{"content":"…"},"logprobs":null,"finish_reason":null}],…}
// Parsing each whole chunk with JSON.parse builds a tree of objects (the chunk, its choice list, the choice, the
// delta, their strings) only to read that one string, and most of the gateway's garbage per chunk was that tree.
// This reads the text of such a chunk from the string directly, and says "not plain" for anything else, which the
// caller then parses as before.
//
// Why substring tests are enough: inside a JSON string every `"` is escaped, so a `"` that another character than
// a backslash precedes is the JSON's own. `"delta":{"content":"` can therefore only be the delta's own key, and a
// `"delta":` or `"finish_reason":` that occurs once is the only one. Text that merely looks like such keys is
// written `\"delta\":` in the JSON and never matches. A chunk written with spaces after its colons (Python's
// json.dumps) is not plain: it is parsed.

const DELTA = '"delta":{';
const CONTENT = '"content":"';
const ROLE_THEN_CONTENT = '"role":"assistant","content":"';
const FINISH = '"finish_reason":';
const INDEX = '"index":';

/**
 * The text of a chunk whose one choice (index 0) is a delta of `content` alone (or `role` "assistant" and
 * `content`), with no finish; undefined for every other chunk. A chunk that is not valid JSON may still read as
 * plain: the caller sends such a chunk on as it came either way.
 */
export function plainContentOf(data: string): string | undefined {
  const delta = data.indexOf(DELTA);
  if (delta < 0) return undefined;
  let start = delta + DELTA.length;
  if (data.startsWith(CONTENT, start)) start += CONTENT.length;
  else if (data.startsWith(ROLE_THEN_CONTENT, start)) start += ROLE_THEN_CONTENT.length;
  else return undefined;
  const end = closingQuote(data, start);
  // The delta ends with its text: no tool calls, no reasoning, nothing after it.
  if (end < 0 || data.charCodeAt(end + 1) !== 0x7d) return undefined;
  if (data.includes('"delta":', end)) return undefined;
  if (!absentOr(data, FINISH, 'null') || !absentOr(data, INDEX, '0')) return undefined;
  const text = data.slice(start, end);
  return text.includes('\\') ? (JSON.parse(`"${text}"`) as string) : text;
}

// Where the JSON string that starts at `start` ends (its closing quote), or -1.
function closingQuote(data: string, start: number): number {
  let quote = data.indexOf('"', start);
  while (quote >= 0) {
    let backslashes = 0;
    while (data.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    quote = data.indexOf('"', quote + 1);
  }
  return -1;
}

// A key of the choice that may be absent, or present once with `value` (a key never matches inside a string).
function absentOr(data: string, key: string, value: string): boolean {
  const at = data.indexOf(key);
  if (at < 0) return true;
  const next = at + key.length;
  if (!data.startsWith(value, next)) return false;
  const after = data.charCodeAt(next + value.length);
  return (after === 0x2c || after === 0x7d) && !data.includes(key, next);
}

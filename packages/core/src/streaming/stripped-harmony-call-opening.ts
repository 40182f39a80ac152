import { harmonyConstrainToken, harmonyRecipient } from '../recovery/dialects/harmony-tool-call-parser.ts';
import { readIdentifierEnd, skipWhitespace } from '../recovery/text-search.ts';
import { startsWithPart } from './held-answer-opening.ts';

// What a server that decodes gpt-oss with `skip_special_tokens` leaves of a call's header
// `<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>`: the channel's name, the recipient, and
// the content type glued to the arguments.
const header = `commentary ${harmonyRecipient}`;
const contentType = 'json';

/** How far the text at the answer's start reads as a stripped Harmony call header, as far as the text shows it. */
export type StrippedHarmonyCallOpening = 'wait' | 'prose' | { readonly bodyStart: number };

/**
 * Reads `commentary to=functions.NAME` then ` <|constrain|>json`, ` json` or `json` glued to the name (gpt-oss
 * writes `get_weatherjson`), running into a JSON object, at `from`, as the harmony parser reads a stripped header
 * (its `strippedBodyStart`): only a declared tool's name (`names`) makes it a call, so the words are specific enough
 * for any model. `'wait'` while the text ends before that is decided, so the answer filter holds the answer's start
 * from its first character; the body starts at the object's `{`.
 */
export function readStrippedHarmonyCallOpening(
  held: string,
  from: number,
  names: ReadonlySet<string>,
): StrippedHarmonyCallOpening {
  const opening = startsWithPart(held, from, header);
  if (opening !== true) return opening;
  const nameStart = from + header.length;
  const nameEnd = readIdentifierEnd(held, nameStart);
  const name = held.slice(nameStart, nameEnd);
  if (nameEnd >= held.length) {
    for (const known of names) if (`${known}${contentType}`.startsWith(name)) return 'wait';
    return 'prose';
  }
  const glued = name.endsWith(contentType) && names.has(name.slice(0, -contentType.length));
  if (!names.has(name) && !glued) return 'prose';
  let at = skipWhitespace(held, nameEnd);
  const constrain = startsWithPart(held, at, harmonyConstrainToken);
  if (constrain === 'wait') return 'wait';
  if (constrain === true) at += harmonyConstrainToken.length;
  const type = startsWithPart(held, at, contentType);
  if (type === 'wait') return 'wait';
  if (type === true) at += contentType.length;
  at = skipWhitespace(held, at);
  if (at >= held.length) return 'wait';
  return held.charCodeAt(at) === 0x7b ? { bodyStart: at } : 'prose';
}

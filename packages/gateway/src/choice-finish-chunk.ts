// Whether a streamed Chat Completions chunk ends a choice (its `finish_reason` is set), read from the string without
// parsing it: the relay asks this of nearly every chunk (see `relayEvents`' `ends`), and a finish is where the repair
// recovers the calls from the whole text, the one piece of a stream's work that is not constant per chunk.
//
// As in plain-content-chunk.ts: inside a JSON string every `"` is escaped, so `"finish_reason":` can only be the
// key itself, never text that mentions it.

const FINISH = '"finish_reason":';

/** Whether any choice of the chunk has a `finish_reason` other than null (a chunk with spaces included). */
export function endsAChoice(data: string): boolean {
  let at = data.indexOf(FINISH);
  while (at >= 0) {
    let value = at + FINISH.length;
    while (isSpace(data.charCodeAt(value))) value += 1;
    if (!data.startsWith('null', value)) return true;
    at = data.indexOf(FINISH, value);
  }
  return false;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

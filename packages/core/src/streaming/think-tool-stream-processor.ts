/**
 * Turns the streamed argument fragments of a `think_tool` call (`{"reasoning": "…"}`) into reasoning text as
 * it arrives, for models without native reasoning. Unlike a hold-back-three-characters approach,
 * it decodes the JSON string exactly with a small state machine, so escapes split across fragments (`\` | `n`,
 * `\u00` | `e9`, a surrogate pair split between two `\u` escapes) come out right, `\\n` stays a backslash and an
 * `n`, and the closing `"}` is never emitted. Other keys are skipped; lone surrogates and NUL are dropped.
 */
export interface ThinkToolStreamProcessor {
  /** Feeds one argument fragment; returns the reasoning text it completes (possibly empty). */
  process(fragment: string): string;
  /** Ends the call; returns nothing more than what is safe (a dangling high surrogate is dropped). */
  flush(): string;
}

type State =
  | 'start'
  | 'before-key'
  | 'key'
  | 'key-escape'
  | 'after-key'
  | 'before-value'
  | 'value'
  | 'value-escape'
  | 'value-unicode'
  | 'skip'
  | 'done';

const simpleEscapes: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  b: '\b',
  f: '\f',
  '"': '"',
  '\\': '\\',
  '/': '/',
};

/** Creates a {@link ThinkToolStreamProcessor} reading the `reasoning` key (or another `key`). */
export function createThinkToolStreamProcessor(
  options: { readonly key?: string } = {},
): ThinkToolStreamProcessor {
  const wantedKey = options.key ?? 'reasoning';
  let state: State = 'start';
  let key = '';
  let unicodeDigits = '';
  let pendingHighSurrogate = '';
  // Skipping a value that is not the reasoning: bracket depth and string state.
  let skipDepth = 0;
  let skipInString = false;
  let skipEscaped = false;

  function emitCode(code: number, output: string[]): void {
    if (code >= 0xd800 && code <= 0xdbff) {
      pendingHighSurrogate = String.fromCharCode(code);
      return;
    }
    if (code >= 0xdc00 && code <= 0xdfff) {
      if (pendingHighSurrogate) output.push(pendingHighSurrogate + String.fromCharCode(code));
      pendingHighSurrogate = '';
      return;
    }
    pendingHighSurrogate = '';
    if (code !== 0) output.push(String.fromCharCode(code));
  }

  function step(character: string, output: string[]): void {
    const isSpace = character === ' ' || character === '\n' || character === '\r' || character === '\t';
    switch (state) {
      case 'start':
        if (character === '{') state = 'before-key';
        else if (!isSpace) state = 'done';
        return;
      case 'before-key':
        if (character === '"') {
          state = 'key';
          key = '';
        } else if (character === '}') state = 'done';
        return;
      case 'key':
        if (character === '\\') state = 'key-escape';
        else if (character === '"') state = 'after-key';
        else key += character;
        return;
      case 'key-escape':
        key += simpleEscapes[character] ?? character;
        state = 'key';
        return;
      case 'after-key':
        if (character === ':') state = 'before-value';
        return;
      case 'before-value':
        if (isSpace) return;
        if (key === wantedKey && character === '"') {
          state = 'value';
          return;
        }
        state = 'skip';
        skipDepth = 0;
        skipInString = false;
        skipEscaped = false;
        step(character, output);
        return;
      case 'value':
        if (character === '\\') state = 'value-escape';
        else if (character === '"') state = 'done';
        else emitCode(character.charCodeAt(0), output);
        return;
      case 'value-escape':
        if (character === 'u') {
          state = 'value-unicode';
          unicodeDigits = '';
          return;
        }
        state = 'value';
        emitCode((simpleEscapes[character] ?? character).charCodeAt(0), output);
        return;
      case 'value-unicode':
        unicodeDigits += character;
        if (unicodeDigits.length < 4) return;
        state = 'value';
        if (/^[0-9a-fA-F]{4}$/.test(unicodeDigits)) emitCode(Number.parseInt(unicodeDigits, 16), output);
        return;
      case 'skip':
        if (skipInString) {
          if (skipEscaped) skipEscaped = false;
          else if (character === '\\') skipEscaped = true;
          else if (character === '"') {
            skipInString = false;
            if (skipDepth === 0) state = 'before-key';
          }
          return;
        }
        if (character === '"') skipInString = true;
        else if (character === '{' || character === '[') skipDepth++;
        else if (character === '}' || character === ']') {
          if (skipDepth === 0) state = 'done';
          else if (--skipDepth === 0) state = 'before-key';
        } else if (character === ',' && skipDepth === 0) state = 'before-key';
        return;
      case 'done':
        return;
    }
  }

  return {
    process(fragment) {
      if (typeof fragment !== 'string' || state === 'done') return '';
      const output: string[] = [];
      for (const character of fragment) {
        // Iterating by code point keeps a raw surrogate pair together; a pair split across fragments is
        // rejoined through pendingHighSurrogate.
        if (state === 'value' && character.length === 2) {
          if (pendingHighSurrogate) pendingHighSurrogate = '';
          output.push(character);
          continue;
        }
        step(character, output);
        if ((state as State) === 'done') break;
      }
      return output.join('');
    },
    flush() {
      pendingHighSurrogate = '';
      state = 'done';
      return '';
    },
  };
}

/**
 * Puts back the Harmony special tokens a server stripped from gpt-oss's output, chunk by chunk, so the rest of
 * the pipeline (the stream filter, the Harmony parser, the history) reads real Harmony. A server that decodes
 * with `skip_special_tokens` turns
 * `<|channel|>analysis<|message|>The user wants…<|end|><|start|>assistant<|channel|>final<|message|>It is 20°C.`
 * into `analysisThe user wants…assistantfinalIt is 20°C.`, and a call into
 * `…assistantcommentary to=functions.get_weather json{"city":"Paris"}`; some strip only part of the tokens
 * (`…assistantcommentary to=functions.x <|constrain|>json{…}`).
 *
 * Only for a model known to write Harmony (the gpt-oss profile, or a served template that writes Harmony): the
 * channel names glued to the text are what the stripping leaves, and no other model writes them. Even so it reads
 * only unmistakable shapes: the answer's very start (a channel's name, `analysis` mostly, glued to a capital letter
 * or `<|message|>`, or `commentary to=`), and a channel name glued to `assistant` (`assistantfinal`,
 * `assistantcommentary`, `assistantanalysis`), which prose never holds.
 */
export class StrippedHarmonyRestorer {
  #mode: 'start' | 'body' | 'header' = 'start';
  #pending = '';
  /** Characters of a stripped call header copied so far (a header is short; a long one is not a header). */
  #headerLength = 0;
  /** The last characters passed on (to tell whether an `<|end|>` the server kept was just written). */
  #tail = '';

  /** Feeds the next chunk; returns the restored text that can be passed on now. */
  process(chunk: string): string {
    this.#pending += chunk;
    return this.#drain(false);
  }

  /** Ends the stream: returns the rest. */
  flush(): string {
    const out = this.#drain(true) + this.#pending;
    this.#pending = '';
    this.#mode = 'start';
    this.#headerLength = 0;
    this.#tail = '';
    return out;
  }

  #drain(final: boolean): string {
    const out = this.#restore(final);
    this.#tail = (this.#tail + out).slice(-endToken.length);
    return out;
  }

  #restore(final: boolean): string {
    let out = '';
    for (;;) {
      const before = this.#pending.length;
      const mode = this.#mode;
      if (mode === 'start') out += this.#start(final);
      else if (mode === 'header') out += this.#header(final);
      else out += this.#body(final);
      // Stop once a step neither consumed text nor changed mode: it waits for more.
      if (this.#pending.length === before && this.#mode === mode) return out;
      if (this.#pending === '') return out;
    }
  }

  #start(final: boolean): string {
    const text = this.#pending;
    const channel = channels.find((name) => text.startsWith(name));
    if (channel !== undefined && !text.startsWith(commentaryRecipient)) {
      // A message opening the answer: the analysis (reasoning), or a preamble (`commentary`) or the final answer
      // when the model skipped its reasoning. Its channel's name is glued to its text.
      const next = text.slice(channel.length);
      if (next.startsWith(messageToken))
        return this.#take(channel.length, 'body', `${channelToken}${channel}`);
      if (next !== '' && isCapital(next.charCodeAt(0))) {
        return this.#take(channel.length, 'body', `${channelToken}${channel}${messageToken}`);
      }
      if (!final && (messageToken.startsWith(next) || commentaryRecipient.startsWith(text))) return '';
    } else if (text.startsWith(commentaryRecipient)) {
      // Only a header that runs into its body within a few dozen characters is one.
      const body = headerBodyAt(text);
      if (body >= 0) {
        const message = text.startsWith(messageToken, body) ? '' : messageToken;
        return this.#take(body, 'body', `${channelToken}${text.slice(0, body)}${message}`);
      }
      if (!final && text.length < maxHeaderLength) return '';
    } else if (!final && channels.some((name) => name.startsWith(text))) {
      return '';
    }
    this.#mode = 'body';
    return '';
  }

  #body(final: boolean): string {
    const text = this.#pending;
    let hold = -1;
    for (let at = text.indexOf(assistant); at >= 0; at = text.indexOf(assistant, at + 1)) {
      const rest = text.slice(at + assistant.length);
      const channel = channels.find((name) => rest.startsWith(name));
      if (channel === undefined) {
        // Maybe a channel name the next chunk completes.
        if (!final && rest.length < longestChannel && channels.some((name) => name.startsWith(rest))) {
          hold = startOf(text, at);
          break;
        }
        continue;
      }
      const after = rest.slice(channel.length);
      if (!final && undecided(channel, after)) {
        hold = startOf(text, at);
        break;
      }
      // A `<|start|>` (and `<|end|>`) the server kept are written once.
      const kept = startOf(text, at);
      const prose = text.slice(0, kept);
      const ended = (this.#tail + prose).endsWith(endToken);
      const header = `${ended ? '' : endToken}${startToken}assistant${channelToken}${channel}`;
      this.#pending = after;
      if (channel === 'commentary' && after.startsWith(recipientStart)) {
        this.#mode = 'header';
        this.#headerLength = 0;
        return prose + header;
      }
      this.#mode = 'body';
      return prose + header + (after.startsWith(messageToken) ? '' : messageToken);
    }
    // Everything up to a possible split `assistant…` at the end can go.
    const cut = final ? text.length : hold >= 0 ? hold : partialAssistantAt(text);
    this.#pending = text.slice(cut);
    return text.slice(0, cut);
  }

  /** A call header (` to=functions.x <|constrain|>json`): copied up to its body, where `<|message|>` goes. */
  #header(final: boolean): string {
    const text = this.#pending;
    for (let index = 0; index < text.length; index += 1) {
      const code = text.charCodeAt(index);
      if (text.startsWith(messageToken, index)) return this.#take(index, 'body', text.slice(0, index));
      if (code === 0x7b || code === 0x5b)
        return this.#take(index, 'body', text.slice(0, index) + messageToken);
      if (this.#headerLength + index >= maxHeaderLength)
        return this.#take(index, 'body', text.slice(0, index));
    }
    if (final) return this.#take(text.length, 'body', text);
    // A `<|message|>` may be split over chunks: keep a possible start of it.
    const keep = text.lastIndexOf('<');
    const upTo = keep >= 0 && messageToken.startsWith(text.slice(keep)) ? keep : text.length;
    this.#headerLength += upTo;
    const copied = text.slice(0, upTo);
    this.#pending = text.slice(upTo);
    return copied;
  }

  #take(length: number, mode: 'body' | 'header', out: string): string {
    this.#pending = this.#pending.slice(length);
    this.#mode = mode;
    return out;
  }
}

const channelToken = '<|channel|>';
const messageToken = '<|message|>';
const startToken = '<|start|>';
const endToken = '<|end|>';
const commentary = 'commentary';
const recipientStart = ' to=';
const commentaryRecipient = `${commentary}${recipientStart}`;
const assistant = 'assistant';
const channels = ['final', 'commentary', 'analysis'] as const;
const longestChannel = Math.max(...channels.map((name) => name.length));
const maxHeaderLength = 160;

function isCapital(code: number): boolean {
  return code >= 0x41 && code <= 0x5a;
}

/** Where the body of the header opening `text` starts (its `{`, `[` or `<|message|>`), or -1 if not near. */
function headerBodyAt(text: string): number {
  const end = Math.min(text.length, maxHeaderLength);
  for (let index = commentaryRecipient.length; index < end; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 0x7b || code === 0x5b || text.startsWith(messageToken, index)) return index;
    if (code === 0x0a) return -1;
  }
  return -1;
}

/** Where a tail of `text` that may be the start of `<|start|>assistant` begins (the text's end if none). */
function partialAssistantAt(text: string): number {
  const glued = startToken + assistant;
  for (let start = Math.max(0, text.length - glued.length + 1); start < text.length; start += 1) {
    const tail = text.slice(start);
    if (glued.startsWith(tail) || assistant.startsWith(tail)) return start;
  }
  return text.length;
}

/** Where the glued `assistant` at `at` starts, counting a `<|start|>` the server kept before it. */
function startOf(text: string, at: number): number {
  return text.endsWith(startToken, at) ? at - startToken.length : at;
}

/**
 * Whether what follows a glued channel name is too short yet to tell: whether a `<|message|>` the server kept
 * follows, and after `commentary`, a recipient from a preamble.
 */
function undecided(channel: string, after: string): boolean {
  return (
    (after.length < messageToken.length && messageToken.startsWith(after)) ||
    (channel === 'commentary' && after.length < recipientStart.length && recipientStart.startsWith(after))
  );
}

/**
 * A restorer when the dialects tried first include Harmony (the gpt-oss profile, or a configured list): for any
 * other model the glued channel names are left alone, so its prose can never be read as Harmony.
 */
export function strippedHarmonyRestorerFor(
  preferredDialects: readonly string[] | undefined,
): StrippedHarmonyRestorer | undefined {
  return preferredDialects?.includes('harmony') ? new StrippedHarmonyRestorer() : undefined;
}

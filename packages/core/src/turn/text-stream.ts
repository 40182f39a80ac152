import type { Packet } from '@toolbus/spec';
import { placementKey } from '@toolbus/spec';

/**
 * Where text that may still be retracted begins: a line (or a fence) that opens like a tool call written as text
 * (`{`, `[`, `<`, a code fence). The turn hides markup as it streams and holds back an answer that starts like a
 * bare call, so only such a call after prose is found late and retracted with `message-replace`.
 */
const callLikeLine = /(^|\n)[ \t]*(\{|\[|<|```)/;

interface MessageText {
  /** Everything the message holds so far (after any replacement). */
  text: string;
  /** How much of `text` was given out. */
  given: number;
}

/**
 * The answer of a turn as plain text, as it streams: the text of the turn's own messages (not a sub-agent's), in
 * order, for a program that only prints the answer. A `message-replace` is handled: text that might still turn
 * out to be a tool call written as text (from a line that opens like one) is held until its step ends or the
 * replacement comes; then only what stays in the answer is given. Text once given is never
 * taken back, so a call retracted from the middle of text already given (rare: a model that writes its call and
 * then prose in one step) leaves the given text as it was. Iterating consumes the turn's packets; `turn.result`
 * still has the full result.
 */
export async function* textStream(packets: AsyncIterable<Packet>): AsyncGenerator<string> {
  let current: { key: string; message: MessageText } | undefined;
  const settle = function* (): Generator<string> {
    if (current === undefined) return;
    const { message } = current;
    if (message.given < message.text.length) yield message.text.slice(message.given);
    current = undefined;
  };
  for await (const packet of packets) {
    const { obj } = packet;
    if (packet.placement.path?.length) continue;
    const key = placementKey(packet.placement);
    if (obj.type !== 'message-delta' && obj.type !== 'message-replace') {
      // Anything else of the turn's own (a tool starting, the next step, the stop) ends the message's step.
      if (obj.type !== 'message-start' && obj.type !== 'citation-info') yield* settle();
      continue;
    }
    if (current?.key !== key) {
      yield* settle();
      current = { key, message: { text: '', given: 0 } };
    }
    const message = current.message;
    if (obj.type === 'message-delta') message.text += obj.content;
    else {
      const kept = obj.content.startsWith(message.text.slice(0, message.given));
      message.text = obj.content;
      if (!kept) message.given = Math.min(message.given, message.text.length);
    }
    const pending = message.text.slice(message.given);
    const held = pending.search(callLikeLine);
    const upTo = held === -1 ? message.text.length : message.given + held + (pending[held] === '\n' ? 1 : 0);
    if (upTo > message.given) {
      yield message.text.slice(message.given, upTo);
      message.given = upTo;
    }
  }
  yield* settle();
}

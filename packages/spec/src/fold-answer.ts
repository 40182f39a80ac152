import { omitUndefined } from './omit-undefined.ts';
import type { Packet, PacketObject, StopReason } from './packet.ts';
import { placementKey } from './placement.ts';

/**
 * A message's text after one more packet at its placement: `message-start` begins it empty, `message-delta`
 * appends, and `message-replace` (text already shown held tool calls) replaces it. `undefined`: the packet is not
 * a message packet. The one rule every reader of answer text follows (the server, the CLI, the web UI).
 */
export function nextMessageText(text: string, obj: PacketObject): string | undefined {
  switch (obj.type) {
    case 'message-start':
      return '';
    case 'message-delta':
      return text + obj.content;
    case 'message-replace':
      return obj.content;
    default:
      return undefined;
  }
}

/** A turn's answer, read from its packets by {@link foldAnswer}. */
export interface FoldedAnswer {
  /** The last top-level message: the turn's answer, as a reader saw it. */
  readonly answer: string;
  /** Every top-level message with text, in the order they started (prose before tool calls, then the answer). */
  readonly messages: readonly string[];
  /** The citation numbers the answer's messages announced, with their documents' ids, first announcement first. */
  readonly citations: readonly { readonly citationNumber: number; readonly documentId: string }[];
  /** Why the turn stopped; absent while the stream has no `stop`. */
  readonly stopReason?: StopReason;
  /** The last top-level error the stream reported. */
  readonly error?: { readonly code: string; readonly message: string };
}

/**
 * Folds a turn's packets into its answer text, citations and state. Only top-level packets count: a sub-agent's
 * messages (under a `path`) are its own, not the turn's answer. The one owner of "what did this turn answer"
 * (an interrupted turn's closing, a research run read back from its stream).
 */
export function foldAnswer(packets: Iterable<Packet>): FoldedAnswer {
  const messages = new Map<string, string>();
  const citations = new Map<number, string>();
  let last: string | undefined;
  let stopReason: StopReason | undefined;
  let error: { code: string; message: string } | undefined;
  for (const { placement, obj } of packets) {
    if (placement.path?.length) continue;
    const key = placementKey(placement);
    // A new message at a placement that had one starts over (recorded again, so it counts as the latest).
    if (obj.type === 'message-start') messages.delete(key);
    const text = nextMessageText(messages.get(key) ?? '', obj);
    if (text !== undefined) {
      messages.set(key, text);
      last = key;
    } else if (obj.type === 'citation-info' && !citations.has(obj.citationNumber)) {
      citations.set(obj.citationNumber, obj.documentId);
    } else if (obj.type === 'stop') {
      stopReason = obj.reason;
    } else if (obj.type === 'error') {
      error = { code: obj.code, message: obj.message };
    }
  }
  return {
    answer: last === undefined ? '' : (messages.get(last) ?? ''),
    messages: [...messages.values()].filter((text) => text !== ''),
    citations: [...citations].map(([citationNumber, documentId]) => ({ citationNumber, documentId })),
    ...omitUndefined({ stopReason, error }),
  };
}

import type { ServerResponse } from 'node:http';
import { ChunkedBodyWriter } from '@toolbus/core/node';
import type { StoredPacket } from '@toolbus/storage';
import type { LiveTurn } from '../chats/live-turn.ts';
import type { UiMessageChunk } from './ui-message-chunks.ts';
import { UiMessageTranslator } from './ui-message-chunks.ts';
import { uiMessageStreamHeaders } from './ui-message-stream-response.ts';

const done = 'data: [DONE]\n\n';

/** One chunk on the wire. */
function frame(chunk: UiMessageChunk): string {
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** The stream's last frames after a failure: an error useChat shows, then the end. */
function errorFrames(error: unknown): string {
  const errorText = error instanceof Error ? error.message : String(error);
  return `${frame({ type: 'error', errorText })}${done}`;
}

/**
 * Writes a UI message stream straight to a Node response: the same bytes as `uiMessageStreamResponse`, without a
 * web stream per connection (its pull, enqueue and the host's copy loop cost more per token than the bytes). A
 * turn running in this process (`live`) is translated from its packets in memory when it publishes them: the
 * chunks of one publish go out in one write, with no promise or generator step per packet (as the native SSE
 * route's writePacketStream does). Any other turn is read from `open`'s chunks. The head goes out with the first
 * chunk, not in a write of its own. While the socket refuses more, the writer waits for `drain`. Closing the
 * connection stops only this writer, never the turn.
 */
export function writeUiMessageStream(options: {
  readonly outgoing: ServerResponse;
  readonly open: (signal: AbortSignal) => AsyncIterator<UiMessageChunk>;
  /** The turn, when it runs in this process, and the message id its chunks start with. */
  readonly live?: { readonly turn: LiveTurn; readonly messageId: string } | undefined;
  readonly headers?: Readonly<Record<string, string>>;
}): void {
  const { outgoing } = options;
  if (outgoing.destroyed) return;
  outgoing.writeHead(200, uiMessageStreamHeaders(options.headers));
  if (options.live) {
    writeLive(outgoing, options.live.turn, new UiMessageTranslator(options.live.messageId));
    return;
  }
  const reader = new AbortController();
  const iterator = options.open(reader.signal);
  let closed = false;
  let drained: (() => void) | undefined;
  outgoing.once('close', () => {
    closed = true;
    reader.abort();
    void iterator.return?.(undefined)?.catch(() => undefined);
    drained?.();
  });
  void (async () => {
    try {
      for (;;) {
        const next = await iterator.next();
        if (closed) return;
        if (next.done) break;
        if (!outgoing.write(frame(next.value))) {
          await new Promise<void>((resolve) => {
            drained = resolve;
            outgoing.once('drain', resolve);
          });
          if (closed) return;
        }
      }
      outgoing.end(done);
    } catch (error) {
      if (closed) return;
      outgoing.end(errorFrames(error));
    }
  })();
}

/**
 * The live turn's writer: on every publish (LiveTurn.watch), the new packets' chunks in one write, framed as an
 * HTTP chunk and written straight to the socket once the head is out (ChunkedBodyWriter: one socket write, no
 * cork and next-tick uncork per publish). While the socket refuses more, nothing is written; what was published
 * meanwhile goes out at its `drain`.
 */
function writeLive(outgoing: ServerResponse, live: LiveTurn, translator: UiMessageTranslator): void {
  const body = new ChunkedBodyWriter(outgoing);
  let position = 0;
  let pending = frame(translator.start());
  let finished = false;
  let blocked = false;
  const finish = (last: string) => {
    finished = true;
    stop();
    outgoing.end(last);
  };
  const pump = () => {
    if (finished || blocked) return;
    try {
      if (position < live.lastSequence) {
        const packets: readonly StoredPacket[] = live.packetsAfter(position);
        position = live.lastSequence;
        for (const stored of packets) {
          for (const chunk of translator.push(stored)) pending += frame(chunk);
          if (translator.finished) break;
        }
      }
      if (translator.finished || live.done) {
        for (const chunk of translator.end()) pending += frame(chunk);
        const last = `${pending}${done}`;
        pending = '';
        finish(last);
        return;
      }
    } catch (error) {
      const last = `${pending}${errorFrames(error)}`;
      pending = '';
      finish(last);
      return;
    }
    if (pending === '') return;
    const text = pending;
    pending = '';
    body.write(text);
    if (body.needsDrain) {
      blocked = true;
      body.onDrain(() => {
        blocked = false;
        pump();
      });
    }
  };
  const stop = live.watch(pump);
  outgoing.once('close', () => {
    if (finished) return;
    finished = true;
    stop();
  });
  pump();
  if (!finished && !outgoing.headersSent) outgoing.flushHeaders();
}

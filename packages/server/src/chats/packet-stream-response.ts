import type { ServerResponse } from 'node:http';
import { ChunkedBodyWriter } from '@toolbus/core/node';
import { packetJson } from '@toolbus/spec';
import type { StoredPacket } from '@toolbus/storage';
import type { LiveTurn } from './live-turn.ts';

/** How a packet stream is framed: Server-Sent Events, or one JSON object per line. */
export type PacketStreamFormat = 'sse' | 'ndjson';

/** How long a stream may be silent before a heartbeat is written (keeps proxies from closing it). */
export const HEARTBEAT_INTERVAL_MS = 15_000;

/**
 * One packet on the wire: the stored packet with its `sequence` first. In SSE the sequence is also the event `id`,
 * so a browser's `EventSource` resumes with `Last-Event-ID` by itself.
 */
export function wirePacket(stored: StoredPacket): Record<string, unknown> {
  return { sequence: stored.sequence, ...(stored.packet as Record<string, unknown>) };
}

/** The content type of a format. */
export function packetStreamContentType(format: PacketStreamFormat): string {
  return format === 'sse' ? 'text/event-stream; charset=utf-8' : 'application/x-ndjson; charset=utf-8';
}

/**
 * A streaming response of `packets`. Closing the connection only stops this reader (through the signal given to
 * `open`): the turn itself goes on. Heartbeats: an SSE comment, or an empty NDJSON line, after 15 s of silence.
 */
export function packetStreamResponse(options: {
  readonly format: PacketStreamFormat;
  readonly open: (signal: AbortSignal) => AsyncIterator<StoredPacket>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly heartbeatMs?: number;
}): Response {
  const reader = new AbortController();
  const encoder = new TextEncoder();
  const iterator = options.open(reader.signal);
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_INTERVAL_MS;
  const heartbeat = encoder.encode(options.format === 'sse' ? ': heartbeat\n\n' : '\n');
  let lastWrite = Date.now();
  let finished = false;
  let timer: NodeJS.Timeout | undefined;
  const finish = () => {
    finished = true;
    clearInterval(timer);
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // One timer per stream, checking for silence a few times per interval, rather than a timer per packet: a
      // server streaming to a thousand clients writes tens of thousands of packets a second.
      timer = setInterval(
        () => {
          if (finished || Date.now() - lastWrite < heartbeatMs) return;
          lastWrite = Date.now();
          controller.enqueue(heartbeat);
        },
        Math.max(1, Math.floor(heartbeatMs / 4)),
      );
      timer.unref();
    },
    async pull(controller) {
      try {
        const outcome = await iterator.next();
        if (finished) return;
        if (outcome.done) {
          finish();
          controller.close();
          return;
        }
        lastWrite = Date.now();
        controller.enqueue(encoder.encode(frame(options.format, outcome.value)));
      } catch (error) {
        if (finished) return;
        finish();
        controller.enqueue(encoder.encode(errorFrame(options.format, error)));
        controller.close();
      }
    },
    cancel() {
      finish();
      reader.abort();
      void iterator.return?.();
    },
  });
  return new Response(body, { status: 200, headers: streamHeaders(options.format, options.headers) });
}

/**
 * Writes a packet stream straight to a Node response, with the same bytes {@link packetStreamResponse} sends.
 * A turn running in this process (`live`) is written from its packets in memory when it publishes them: the
 * packets of one publish go out in one write, with no promise, generator step or web stream per packet (with a
 * thousand streams open, those cost more than the bytes). A slow reader is not buffered for: while the socket
 * refuses more, nothing is written, and what was published meanwhile goes out at its `drain`. Any other turn is
 * read from `open`'s iterator. Closing the connection only stops this writer: the turn goes on.
 */
export function writePacketStream(options: {
  readonly outgoing: ServerResponse;
  readonly format: PacketStreamFormat;
  /** The sequence the stream starts after. */
  readonly after: number;
  /** The turn, when it runs in this process. */
  readonly live: LiveTurn | undefined;
  readonly open: (signal: AbortSignal) => AsyncIterator<StoredPacket>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly heartbeatMs?: number;
}): void {
  const { outgoing, format, live } = options;
  // The client left before the turn started: nothing to write, and no 'close' will come to stop a writer.
  if (outgoing.destroyed) return;
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_INTERVAL_MS;
  const heartbeat = format === 'sse' ? ': heartbeat\n\n' : '\n';
  // The head goes out with the first packets when some are stored already; else on its own, so the client knows
  // the stream is open while the model is still silent.
  outgoing.writeHead(200, streamHeaders(format, options.headers));
  let lastWrite = Date.now();
  let finished = false;
  let blocked = false;
  let stop = () => {};
  const finish = () => {
    finished = true;
    clearInterval(timer);
    stop();
  };
  const end = (text?: string) => {
    if (finished) return;
    finish();
    if (text === undefined) outgoing.end();
    else outgoing.end(text);
  };
  // Once the head is out, each write is one HTTP chunk in one socket write (no cork and next-tick uncork).
  const body = new ChunkedBodyWriter(outgoing);
  /** Writes `text`; false when the response or its socket wants a `drain` first. */
  const send = (text: string): boolean => {
    lastWrite = Date.now();
    body.write(text);
    return !body.needsDrain;
  };
  // What runs once a refused write has drained (or the connection closed): the writer goes on from where it was.
  let afterDrain = () => {};
  const block = () => {
    blocked = true;
    body.onDrain(() => {
      blocked = false;
      afterDrain();
    });
  };
  // One timer per stream, checking for silence a few times per interval (see packetStreamResponse).
  const timer = setInterval(
    () => {
      if (finished || blocked || Date.now() - lastWrite < heartbeatMs) return;
      if (!send(heartbeat)) block();
    },
    Math.max(1, Math.floor(heartbeatMs / 4)),
  );
  timer.unref();
  outgoing.once('close', () => {
    if (!finished) finish();
    afterDrain();
  });
  if (live) {
    let position = Math.max(0, options.after);
    const pump = () => {
      if (finished || blocked) return;
      if (position < live.lastSequence) {
        let text = '';
        for (const packet of live.packetsAfter(position)) text += frame(format, packet);
        position = live.lastSequence;
        if (!send(text)) {
          block();
          return;
        }
      }
      if (live.done) end();
    };
    afterDrain = pump;
    stop = live.watch(pump);
    pump();
    if (!outgoing.headersSent) outgoing.flushHeaders();
    return;
  }
  outgoing.flushHeaders();
  const reader = new AbortController();
  const iterator = options.open(reader.signal);
  stop = () => {
    reader.abort();
    void iterator.return?.()?.catch(() => undefined);
  };
  void (async () => {
    try {
      for (;;) {
        const outcome = await iterator.next();
        if (finished) return;
        if (outcome.done) {
          end();
          return;
        }
        if (!send(frame(format, outcome.value))) {
          block();
          await new Promise<void>((resolve) => {
            afterDrain = resolve;
          });
          if (finished) return;
        }
      }
    } catch (error) {
      end(errorFrame(format, error));
    }
  })();
}

function streamHeaders(
  format: PacketStreamFormat,
  headers: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  return {
    'content-type': packetStreamContentType(format),
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
    ...headers,
  };
}

function frame(format: PacketStreamFormat, stored: StoredPacket): string {
  // The JSON of {@link wirePacket} without copying the packet: its own JSON with the sequence put first.
  const own = packetJson(stored.packet);
  const json =
    own.length > 2 && own.charCodeAt(0) === 0x7b
      ? `{"sequence":${stored.sequence},${own.slice(1)}`
      : JSON.stringify(wirePacket(stored));
  return format === 'sse' ? `id: ${stored.sequence}\ndata: ${json}\n\n` : `${json}\n`;
}

/** A failure after the headers went out: the stream ends with an error the client can read. */
function errorFrame(format: PacketStreamFormat, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const json = JSON.stringify({ error: { code: 'stream_failed', message } });
  return format === 'sse' ? `event: error\ndata: ${json}\n\n` : `${json}\n`;
}

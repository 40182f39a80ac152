import type { StoredPacket } from '@toolbus/storage';

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
  return new Response(body, {
    status: 200,
    headers: {
      'content-type': packetStreamContentType(options.format),
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      ...options.headers,
    },
  });
}

function frame(format: PacketStreamFormat, stored: StoredPacket): string {
  const json = JSON.stringify(wirePacket(stored));
  return format === 'sse' ? `id: ${stored.sequence}\ndata: ${json}\n\n` : `${json}\n`;
}

/** A failure after the headers went out: the stream ends with an error the client can read. */
function errorFrame(format: PacketStreamFormat, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const json = JSON.stringify({ error: { code: 'stream_failed', message } });
  return format === 'sse' ? `event: error\ndata: ${json}\n\n` : `${json}\n`;
}

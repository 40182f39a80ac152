import type { WirePacket } from './api-types.ts';
import { ToolbusClientError } from './client-error.ts';
import { sseEvents } from './sse-events.ts';

/** Options of a turn's packet stream. */
export interface TurnStreamOptions {
  /** Start after this sequence (0: from the first packet). */
  readonly after?: number;
  /** Ends the stream (the turn goes on). */
  readonly signal?: AbortSignal;
  /** Reconnects in a row before giving up (default 8); a packet received resets the count. */
  readonly maxReconnects?: number;
  /** Wait before reconnect `n` (default 250 ms doubling, at most 5 s). */
  readonly backoffMs?: (attempt: number) => number;
  /** Told when the connection dropped and is being reopened from `after`, and when it is live again. */
  readonly onConnection?: (state: {
    readonly live: boolean;
    readonly after: number;
    readonly attempt: number;
  }) => void;
}

/**
 * Follows a turn's stream through dropped connections: `open(after)` is called again with the last sequence
 * received until a `stop` packet arrives or the server ends the stream of a finished turn.
 */
export async function* turnStream(
  open: (after: number, signal: AbortSignal) => Promise<Response>,
  options: TurnStreamOptions = {},
): AsyncGenerator<WirePacket> {
  let after = options.after ?? 0;
  let attempt = 0;
  const maxReconnects = options.maxReconnects ?? 8;
  const backoff = options.backoffMs ?? ((n: number) => Math.min(5000, 250 * 2 ** (n - 1)));
  for (;;) {
    if (options.signal?.aborted) return;
    const connection = new AbortController();
    const onAbort = () => connection.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    let failure: unknown;
    let askedWaitMs = 0;
    try {
      const response = await open(after, connection.signal);
      if (!response.body)
        throw new ToolbusClientError({ code: 'stream_failed', message: 'The stream had no body.' });
      options.onConnection?.({ live: true, after, attempt });
      for await (const event of sseEvents(response.body)) {
        if (event.event === 'error') {
          const body = JSON.parse(event.data) as { error?: { code?: string; message?: string } };
          throw new ToolbusClientError({
            code: body.error?.code ?? 'stream_failed',
            message: body.error?.message ?? 'The stream failed.',
          });
        }
        const packet = JSON.parse(event.data) as WirePacket;
        if (packet.sequence <= after) continue;
        after = packet.sequence;
        attempt = 0;
        yield packet;
        if (packet.obj.type === 'stop') return;
      }
      // The server closes the stream of a turn that has ended: everything was sent.
      return;
    } catch (error) {
      if (options.signal?.aborted) return;
      // The server answered with a refusal (not found, unauthorized): reconnecting cannot help. Too many requests
      // is "not now": the stream waits what the server asked (`Retry-After`), then resumes.
      if (ToolbusClientError.isInstance(error) && error.status === 429)
        askedWaitMs = (error.retryAfterSeconds ?? 0) * 1000;
      else if (ToolbusClientError.isInstance(error) && error.status !== undefined && error.status < 500)
        throw error;
      failure = error;
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      connection.abort();
    }
    attempt += 1;
    if (attempt > maxReconnects) {
      throw new ToolbusClientError({
        code: 'stream_failed',
        message: `The stream dropped ${maxReconnects} times in a row; last packet received: ${after}.`,
        cause: failure,
      });
    }
    options.onConnection?.({ live: false, after, attempt });
    await sleepUnlessAborted(Math.max(backoff(attempt), askedWaitMs), options.signal);
  }
}

/** Waits `ms`, or less when `signal` aborts first (it resolves either way: the caller checks the signal). */
export function sleepUnlessAborted(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ChunkedBodyWriter, type SseEvent, SseEventReader, sseData } from '@toolbus/core/repair';
import { type QueuedTask, runTurnByTurn } from './turn-by-turn.ts';

/**
 * Reads an upstream's server-sent events as they arrive and writes to the client what `repair` makes of each
 * event's `data`: an empty string writes nothing, `undefined` sends the event on as it came (the upstream's own
 * bytes when it is one `data:` line, as nearly every event is: no decoding, no re-encoding). Resolves at the upstream's end; rejects when the upstream
 * breaks off, is cancelled, or `repair` throws. A client that reads slower than the model writes holds the
 * upstream back (its socket is paused until the client's drains) instead of the gateway buffering the answer.
 *
 * Listens to `data` rather than iterating the stream with `for await`: the async iterator costs a promise and a
 * microtask turn per network read, which for a streamed answer is one per token.
 *
 * Only the first event of a network read, and the `quick` events right after it, are repaired at once; the read's
 * other events wait for the event loop's check phase (`runTurnByTurn`: one stream's batch per turn of the loop),
 * the upstream paused meanwhile so the order holds. The first event's bytes then leave before the rest is worked
 * on, and reads of other streams that arrived together, or while an earlier stream's batch was worked on, are
 * served first: an answer's finish carries the end-of-answer work (recovering the calls from the whole text),
 * which otherwise delayed its last token and every other stream's token of the same burst. An event that `ends`
 * an answer waits its turn even when it is a read's first: `node:http` hands the relay each HTTP chunk of the
 * upstream's body as a read of its own, and a model server writes each event as a chunk of its own, so an answer's
 * finish is usually a read's first event, and run there it made the last tokens of the streams that ended in the
 * same burst wait for every earlier stream's end, one after another (0.6–1.2 ms for the 2nd–8th last token of a
 * burst of 8, each behind the ends before it, 70–90 µs each at p50 (the finish's repair and its write);
 * 2026-12-06, 25 streams in the arrival phasing). A quick event (a piece of text) costs what a token costs: deferred, it
 * waited for every other stream's read of the loop's pass, the most of any token's time in the gateway (a read
 * holds two tokens whenever the loop was busy when the second came).
 */
export async function relayEvents(options: {
  readonly upstreamResponse: IncomingMessage;
  readonly response: ServerResponse;
  readonly repair: (data: string) => string | undefined;
  /** Events `repair` handles in constant time: sent at once after a read's first event (default: none). */
  readonly quick?: (data: string) => boolean;
  /**
   * Events that end an answer (`repair` recovers the calls from the whole text): they wait their turn even as a
   * read's first event (default: none).
   */
  readonly ends?: (data: string) => boolean;
}): Promise<void> {
  const { upstreamResponse, response, repair, quick, ends } = options;
  const reader = new SseEventReader();
  const body = new ChunkedBodyWriter(response);
  const pending: SseEvent[] = [];
  let later: QueuedTask | undefined;
  let waitingForDrain = false;
  const send = (event: SseEvent): void => {
    const out = repair(event.data);
    if (out === undefined) body.write(event.raw ?? sseData(event.data));
    else if (out !== '') body.write(out);
  };
  const resumeIfFree = (): void => {
    if (later === undefined && !waitingForDrain) upstreamResponse.resume();
  };
  const holdForDrain = (): void => {
    if (waitingForDrain || !body.needsDrain) return;
    waitingForDrain = true;
    upstreamResponse.pause();
    body.onDrain(() => {
      waitingForDrain = false;
      resumeIfFree();
    });
  };
  const fail = (error: unknown): void => {
    upstreamResponse.destroy(error instanceof Error ? error : new Error(String(error)));
  };
  const sendLater = (): void => {
    later = undefined;
    try {
      for (const event of pending.splice(0)) send(event);
    } catch (error) {
      fail(error);
      return;
    }
    holdForDrain();
    resumeIfFree();
  };
  upstreamResponse.on('data', (chunk: Buffer) => {
    try {
      const events = reader.read(chunk);
      let next = 0;
      if (later === undefined && pending.length === 0) {
        while (next < events.length) {
          const data = (events[next] as SseEvent).data;
          if (next === 0 ? ends?.(data) === true : quick?.(data) !== true) break;
          send(events[next++] as SseEvent);
        }
      }
      while (next < events.length) pending.push(events[next++] as SseEvent);
    } catch (error) {
      fail(error);
      return;
    }
    if (pending.length > 0 && later === undefined) {
      later = runTurnByTurn(sendLater);
      upstreamResponse.pause();
    }
    holdForDrain();
  });
  try {
    await endOf(upstreamResponse);
  } finally {
    later?.cancel();
    later = undefined;
  }
  for (const event of pending.splice(0)) send(event);
}

/**
 * Resolves when the upstream's answer has ended; rejects when it fails, or closes before its end (the upstream broke
 * off, or the request was cancelled). What `stream/promises`' `finished` does for this one kind of stream, with
 * three listeners: `finished` sets up a dozen, on every answer's first chunk's path (28 µs a stream in a CPU
 * profile of the gateway at 25 streams, where the first chunks of streams that start together wait for each other).
 */
function endOf(answer: IncomingMessage): Promise<void> {
  return new Promise((resolve, reject) => {
    answer.once('end', () => resolve());
    // Kept after the answer settled, as `finished` keeps its own: a later error has a listener.
    answer.on('error', reject);
    // `end` comes before `close` when the answer was read to its end; a close without it is a broken answer.
    answer.once('close', () => {
      if (!answer.readableEnded)
        reject(new Error('the upstream closed the connection before its answer ended'));
    });
  });
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { finished } from 'node:stream/promises';
import { createParser } from 'eventsource-parser';

/**
 * Reads an upstream's server-sent events as they arrive and writes to the client what `repair` makes of each
 * event's `data` (an empty string writes nothing). Resolves at the upstream's end; rejects when the upstream
 * breaks off, is cancelled, or `repair` throws. A client that reads slower than the model writes holds the
 * upstream back (its socket is paused until the client's drains) instead of the gateway buffering the answer.
 *
 * Listens to `data` rather than iterating the stream with `for await`: the async iterator costs a promise and a
 * microtask turn per network read, which for a streamed answer is one per token.
 *
 * Only the first event of a network read is repaired at once; the read's other events wait for the event loop's
 * check phase (`setImmediate`), the upstream paused meanwhile so the order holds. The first event's bytes then
 * leave before the rest is worked on, and reads of other streams that arrived together are served first: an
 * answer's last token and its finish usually arrive in one read, and the finish carries the end-of-answer work
 * (recovering the calls from the whole text), which otherwise delayed that token and every other stream's token
 * of the same burst.
 */
export async function relayEvents(options: {
  readonly upstreamResponse: IncomingMessage;
  readonly response: ServerResponse;
  readonly repair: (data: string) => string;
}): Promise<void> {
  const { upstreamResponse, response, repair } = options;
  const pending: string[] = [];
  const parser = createParser({
    onEvent(event) {
      pending.push(event.data);
    },
  });
  const decoder = new TextDecoder();
  let later: NodeJS.Immediate | undefined;
  let waitingForDrain = false;
  const send = (data: string): void => {
    const out = repair(data);
    if (out !== '') response.write(out);
  };
  const resumeIfFree = (): void => {
    if (later === undefined && !waitingForDrain) upstreamResponse.resume();
  };
  const holdForDrain = (): void => {
    if (!response.writableNeedDrain || waitingForDrain) return;
    waitingForDrain = true;
    upstreamResponse.pause();
    response.once('drain', () => {
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
      while (pending.length > 0) send(pending.shift() as string);
    } catch (error) {
      fail(error);
      return;
    }
    holdForDrain();
    resumeIfFree();
  };
  upstreamResponse.on('data', (chunk: Buffer) => {
    try {
      parser.feed(decoder.decode(chunk, { stream: true }));
      if (later === undefined && pending.length > 0) send(pending.shift() as string);
    } catch (error) {
      fail(error);
      return;
    }
    if (pending.length > 0 && later === undefined) {
      later = setImmediate(sendLater);
      upstreamResponse.pause();
    }
    holdForDrain();
  });
  try {
    await finished(upstreamResponse);
  } finally {
    if (later !== undefined) clearImmediate(later);
    later = undefined;
  }
  parser.feed(decoder.decode());
  while (pending.length > 0) send(pending.shift() as string);
}

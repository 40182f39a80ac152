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
 */
export async function relayEvents(options: {
  readonly upstreamResponse: IncomingMessage;
  readonly response: ServerResponse;
  readonly repair: (data: string) => string;
}): Promise<void> {
  const { upstreamResponse, response, repair } = options;
  const parser = createParser({
    onEvent(event) {
      const out = repair(event.data);
      if (out !== '') response.write(out);
    },
  });
  const decoder = new TextDecoder();
  const resume = (): void => {
    upstreamResponse.resume();
  };
  upstreamResponse.on('data', (chunk: Buffer) => {
    try {
      parser.feed(decoder.decode(chunk, { stream: true }));
    } catch (error) {
      upstreamResponse.destroy(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (response.writableNeedDrain && !upstreamResponse.isPaused()) {
      upstreamResponse.pause();
      response.once('drain', resume);
    }
  });
  await finished(upstreamResponse);
  parser.feed(decoder.decode());
}

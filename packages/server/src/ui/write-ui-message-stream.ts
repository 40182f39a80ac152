import type { ServerResponse } from 'node:http';
import type { UiMessageChunk } from './ui-message-chunks.ts';
import { uiMessageStreamHeaders } from './ui-message-stream-response.ts';

/**
 * Writes a UI message stream straight to a Node response: the same bytes as `uiMessageStreamResponse`, without a
 * web stream per connection (its pull, enqueue and the host's copy loop cost more per token than the bytes). The
 * head goes out with the first chunk, not in a write of its own. While the socket refuses more, the writer waits
 * for `drain`. Closing the connection stops only this writer, never the turn.
 */
export function writeUiMessageStream(options: {
  readonly outgoing: ServerResponse;
  readonly open: (signal: AbortSignal) => AsyncIterator<UiMessageChunk>;
  readonly headers?: Readonly<Record<string, string>>;
}): void {
  const { outgoing } = options;
  if (outgoing.destroyed) return;
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
  outgoing.writeHead(200, uiMessageStreamHeaders(options.headers));
  void (async () => {
    try {
      for (;;) {
        const next = await iterator.next();
        if (closed) return;
        if (next.done) break;
        if (!outgoing.write(`data: ${JSON.stringify(next.value)}\n\n`)) {
          await new Promise<void>((resolve) => {
            drained = resolve;
            outgoing.once('drain', resolve);
          });
          if (closed) return;
        }
      }
      outgoing.end('data: [DONE]\n\n');
    } catch (error) {
      if (closed) return;
      const errorText = error instanceof Error ? error.message : String(error);
      outgoing.end(`data: ${JSON.stringify({ type: 'error', errorText })}\n\ndata: [DONE]\n\n`);
    }
  })();
}

import type { UiMessageChunk } from './ui-message-chunks.ts';

/** The header that tells the AI SDK's client the body is a UI message stream, and its version. */
export const UI_MESSAGE_STREAM_HEADER = 'x-vercel-ai-ui-message-stream';

/**
 * A UI message stream response: SSE with one JSON chunk per `data:` line and `[DONE]` at the end, as `useChat`
 * expects. Closing the connection stops only this reader, never the turn.
 */
export function uiMessageStreamResponse(options: {
  readonly open: (signal: AbortSignal) => AsyncIterator<UiMessageChunk>;
  readonly headers?: Readonly<Record<string, string>>;
}): Response {
  const reader = new AbortController();
  const iterator = options.open(reader.signal);
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (next.done) {
          controller.enqueue(encoder.encode('data: [DONE]\n\n'));
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(next.value)}\n\n`));
      } catch (error) {
        const errorText = error instanceof Error ? error.message : String(error);
        controller.enqueue(
          encoder.encode(`data: ${JSON.stringify({ type: 'error', errorText })}\n\ndata: [DONE]\n\n`),
        );
        controller.close();
      }
    },
    cancel() {
      reader.abort();
      void iterator.return?.(undefined);
    },
  });
  return new Response(body, { headers: uiMessageStreamHeaders(options.headers) });
}

/** The headers of a UI message stream, with `extra` (the chat and turn). */
export function uiMessageStreamHeaders(extra?: Readonly<Record<string, string>>): Record<string, string> {
  return {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
    [UI_MESSAGE_STREAM_HEADER]: 'v1',
    ...extra,
  };
}

/** One Server-Sent Event: its `id`, `event` name and joined `data` lines. */
export interface SseEvent {
  readonly id: string | undefined;
  readonly event: string | undefined;
  readonly data: string;
}

/**
 * Parses a Server-Sent Events body into events, as the HTML standard's event-stream parser does (comments and
 * heartbeats skipped, multi-line data joined, CRLF or LF line ends). Ends when the body ends.
 */
export async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let id: string | undefined;
  let event: string | undefined;
  let data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        // A CR at the very end was held back in case LF followed; nothing follows now.
        if (!buffer.endsWith('\r')) return;
        buffer += '\n';
      } else {
        buffer += decoder.decode(value, { stream: true });
      }
      // Scan by index and cut the buffer once per chunk: a large replay arrives in big chunks.
      let start = 0;
      for (;;) {
        const newline = nextLineEnd(buffer, start);
        if (newline < 0) break;
        const line = buffer.slice(start, newline);
        start = newline + (buffer.startsWith('\r\n', newline) ? 2 : 1);
        if (line === '') {
          if (data.length > 0) yield { id, event, data: data.join('\n') };
          event = undefined;
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const fieldValue = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') id = fieldValue;
        else if (field === 'event') event = fieldValue;
        else if (field === 'data') data.push(fieldValue);
      }
      buffer = buffer.slice(start);
      if (done) return;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** The index of the next line end (LF, CR or CRLF) at or after `from`, or -1. A CR at the very end waits for more. */
function nextLineEnd(text: string, from: number): number {
  const lf = text.indexOf('\n', from);
  const cr = text.indexOf('\r', from);
  if (cr < 0 || (lf >= 0 && lf < cr)) return lf;
  if (cr === text.length - 1) return -1;
  return cr;
}

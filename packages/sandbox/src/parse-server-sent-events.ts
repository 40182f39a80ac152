/** One server-sent event: its `event:` name (default `message`) and its joined `data:` lines. */
export interface ServerSentEvent {
  readonly event: string;
  readonly data: string;
}

/** Splits a `text/event-stream` body into events (WHATWG rules: CRLF/LF/CR line ends, comments, multi-line data). */
export async function* parseServerSentEvents(
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  const takeLine = (line: string): ServerSentEvent | undefined => {
    if (line === '') {
      const complete = data.length > 0 ? { event: event || 'message', data: data.join('\n') } : undefined;
      event = '';
      data = [];
      return complete;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
    return undefined;
  };
  // Node's web streams are async-iterable (the DOM lib's type does not say so); leaving the loop early cancels
  // the stream.
  for await (const chunk of body as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let match = /\r\n|\r|\n/.exec(buffer);
    // A lone CR at the end may be the first half of CRLF: wait for the next chunk.
    while (match && !(match[0] === '\r' && match.index === buffer.length - 1)) {
      const line = buffer.slice(0, match.index);
      buffer = buffer.slice(match.index + match[0].length);
      const complete = takeLine(line);
      if (complete) yield complete;
      match = /\r\n|\r|\n/.exec(buffer);
    }
  }
  buffer += decoder.decode();
  // A final CR is a complete line end; an unterminated line, and an event without its blank line, are dropped
  // as the standard says (the stream was cut mid-event).
  if (buffer.endsWith('\r')) {
    const complete = takeLine(buffer.slice(0, -1));
    if (complete) yield complete;
  }
}

/** Where a {@link NodeHttpBody} delivers: each read of the socket, then its end or its failure (once). */
export interface NodeHttpBodySink {
  data(chunk: Buffer): void;
  end(): void;
  /** The error the body's web stream would have failed with (fetch's `TypeError('terminated')`, an abort). */
  error(error: unknown): void;
}

/**
 * The body of a response made by `createNodeHttpFetch`, taken as node:http delivers it rather than through the
 * `Response`'s web stream: for a reader that handles each read at once (the direct SSE reader), the web stream
 * is one enqueue, one read and a promise per socket read, for nothing.
 */
export interface NodeHttpBody {
  /** Starts delivery: the reads that came before, at once, then each as it comes. */
  start(sink: NodeHttpBodySink): void;
  /** Stops the socket's reads (a reader that is behind); `resume` starts them again. */
  pause(): void;
  resume(): void;
  /** Drops the rest of the body and the connection (a reader that stopped). */
  destroy(): void;
}

const bodies = new WeakMap<Response, NodeHttpBody>();

/** Called by `createNodeHttpFetch` for each response with a body. */
export function offerNodeHttpBody(response: Response, body: NodeHttpBody): void {
  bodies.set(response, body);
}

/**
 * The body of `response` as node:http delivers it, when `createNodeHttpFetch` made the response and nobody has
 * read its web stream yet; undefined otherwise (read `response.body`). Taking it leaves `response.body` unread
 * for good: use one or the other.
 */
export function takeNodeHttpBody(response: Response): NodeHttpBody | undefined {
  const body = bodies.get(response);
  if (body === undefined || response.bodyUsed || response.body?.locked === true) return undefined;
  bodies.delete(response);
  return body;
}

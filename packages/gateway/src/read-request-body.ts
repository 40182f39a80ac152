import type { IncomingMessage } from 'node:http';

/** The request body was larger than allowed. */
export class RequestTooLargeError extends Error {
  readonly limit: number;

  constructor(limit: number) {
    super(`The request body is larger than the gateway accepts (${limit} bytes).`);
    this.limit = limit;
  }
}

/** Reads a request body up to `limit` bytes; throws {@link RequestTooLargeError} past it (stops reading there). */
export async function readRequestBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new RequestTooLargeError(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new RequestTooLargeError(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

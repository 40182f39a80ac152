import type { IncomingMessage } from 'node:http';

/** A request body read up to a cap: the bytes, or only how far past the cap it went. */
export type ReadBody =
  | { readonly body: Uint8Array }
  | { readonly tooLarge: true; readonly bodyLength: number };

/**
 * Reads a request body into memory, stopping at `maxBytes` + 1 so an oversized (or endless chunked) body
 * costs at most the cap. A declared Content-Length over the cap is refused without reading.
 */
export async function readRequestBody(request: IncomingMessage, maxBytes: number): Promise<ReadBody> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return { tooLarge: true, bodyLength: declared };
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > maxBytes) return { tooLarge: true, bodyLength: length };
    chunks.push(chunk);
  }
  return { body: chunks.length === 1 && chunks[0] !== undefined ? chunks[0] : Buffer.concat(chunks) };
}

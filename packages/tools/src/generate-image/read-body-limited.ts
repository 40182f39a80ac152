import { readLimitedBody, ToolExecutionError } from '@toolbus/spec';

/**
 * Reads an images-API response body up to `maxBytes` (with the bus-wide bounded reader, so a hostile or broken
 * server cannot fill memory). An answer that declares or turns out larger fails instead of being cut: a cut image
 * or JSON is useless. Over the limit: a `ToolExecutionError` (`image_answer_too_large`).
 */
export async function readBodyLimited(response: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge(maxBytes);
  }
  const { bytes, truncated } = await readLimitedBody(response, maxBytes);
  if (truncated) throw tooLarge(maxBytes);
  return bytes;
}

function tooLarge(maxBytes: number): ToolExecutionError {
  return new ToolExecutionError({
    code: 'image_answer_too_large',
    emitErrorPacket: true,
    message: `The image provider sent more than ${maxBytes} bytes; the answer was not read.`,
  });
}

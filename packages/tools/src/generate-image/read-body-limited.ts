import { ToolExecutionError } from '@toolbus/spec';

/**
 * Reads a response body up to `maxBytes`, cancelling the stream as soon as it grows past the limit, so a hostile
 * or broken server cannot fill memory. Over the limit: a `ToolExecutionError` (`image_answer_too_large`).
 */
export async function readBodyLimited(response: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge(maxBytes);
  }
  if (response.body === null) return new Uint8Array();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function tooLarge(maxBytes: number): ToolExecutionError {
  return new ToolExecutionError({
    code: 'image_answer_too_large',
    emitErrorPacket: true,
    message: `The image provider sent more than ${maxBytes} bytes; the answer was not read.`,
  });
}

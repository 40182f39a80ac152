/** A response body read up to a byte limit. */
export interface CappedBody {
  readonly bytes: Uint8Array;
  /** True when the body was longer than the limit (the rest was not read). */
  readonly truncated: boolean;
}

/**
 * Reads at most `maxBytes` of a response body and cancels the rest, so a huge or endless answer cannot exhaust
 * memory. Abort follows the signal given to fetch (the body stream errors when it fires).
 */
export async function readCappedBody(response: Response, maxBytes: number): Promise<CappedBody> {
  if (response.body === null) return { bytes: new Uint8Array(0), truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  let truncated = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const room = maxBytes - length;
      if (value.byteLength > room) {
        chunks.push(value.subarray(0, room));
        length += room;
        truncated = true;
        break;
      }
      chunks.push(value);
      length += value.byteLength;
    }
  } finally {
    if (truncated) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { bytes, truncated };
}

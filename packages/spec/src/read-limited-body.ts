/** A response body read up to a byte limit. */
export interface LimitedBody {
  readonly bytes: Uint8Array;
  /** True when the body went on past the limit and reading stopped there (the rest was not read). */
  readonly truncated: boolean;
}

/**
 * Reads a response body, stopping at `maxBytes`: a hostile or huge answer cannot fill memory, because reading ends
 * (and the stream is cancelled) as soon as the limit is passed, whatever `Content-Length` claimed. With `signal`,
 * an abort ends the read with the signal's reason even when the server stops sending mid-body; without it, abort
 * follows the signal given to fetch (the body stream errors when that fires).
 */
export async function readLimitedBody(
  response: Response,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<LimitedBody> {
  if (response.body === null) return { bytes: new Uint8Array(0), truncated: false };
  const reader = response.body.getReader();
  // A server that stops sending mid-body must not hold the read past the caller's deadline.
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener('abort', onAbort, { once: true });
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  try {
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      const { done, value } = await reader.read();
      if (done) break;
      if (size + value.byteLength > maxBytes) {
        chunks.push(value.subarray(0, maxBytes - size));
        size = maxBytes;
        truncated = true;
        break;
      }
      chunks.push(value);
      size += value.byteLength;
    }
    if (signal?.aborted) throw signal.reason;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (truncated) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { bytes, truncated };
}

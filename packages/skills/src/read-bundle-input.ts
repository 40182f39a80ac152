import type { SkillBundleInput } from './skill-bundle.ts';

/**
 * Gathers the archive's bytes, stopping as soon as they pass `maxBytes` (a zip's directory sits at its end, so the
 * bytes are needed whole, but never more than the limit). Returns `undefined` when the limit was passed.
 */
export async function readBundleInput(
  input: SkillBundleInput,
  maxBytes: number,
): Promise<Buffer | undefined> {
  if (input instanceof Uint8Array) {
    if (input.length > maxBytes) return undefined;
    return Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of 'getReader' in input ? readWebStream(input) : input) {
    total += chunk.byteLength;
    if (total > maxBytes) return undefined; // leaving the loop closes the stream
    chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
  return Buffer.concat(chunks, total);
}

async function* readWebStream(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

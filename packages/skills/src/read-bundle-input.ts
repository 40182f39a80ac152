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
  // Node's web streams are async-iterable (the DOM lib's type does not say so); leaving the loop early cancels
  // the stream.
  for await (const chunk of input as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > maxBytes) return undefined; // leaving the loop closes the stream
    chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
  return Buffer.concat(chunks, total);
}

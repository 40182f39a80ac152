import { crc32, createInflateRaw } from 'node:zlib';
import { EntryProblem } from '../problem-collector.ts';
import { describeEntryName } from '../skill-bundle-error.ts';
import type { ZipEntry } from './zip-entry.ts';

/** Size of the pieces read and inflated: memory per entry stays near this, whatever the entry expands to. */
export const entryChunkBytes = 64 * 1024;

/**
 * Yields an entry's uncompressed bytes in chunks of at most {@link entryChunkBytes}, straight from the archive.
 * It trusts nothing declared: it stops with `size_mismatch` as soon as the output passes the declared size (so an
 * entry that lies cannot expand further than it admitted), then checks the CRC and that the compressed data was
 * consumed exactly. The caller enforces its own limits by counting and stopping early; stopping destroys the
 * inflater, so no more output is produced. Throws {@link EntryProblem}.
 */
export async function* readEntryData(archive: Buffer, entry: ZipEntry): AsyncGenerator<Buffer> {
  const label = describeEntryName(entry.displayName);
  const compressed = archive.subarray(entry.dataStart, entry.dataStart + entry.compressedSize);
  let produced = 0;
  let checksum = 0;
  const account = (chunk: Buffer) => {
    produced += chunk.length;
    if (produced > entry.uncompressedSize) {
      throw new EntryProblem({
        code: 'size_mismatch',
        message: `${label} expands beyond the ${entry.uncompressedSize} bytes it declares.`,
        entry: entry.displayName,
      });
    }
    checksum = crc32(chunk, checksum);
  };
  if (entry.method === 0) {
    for (let offset = 0; offset < compressed.length; offset += entryChunkBytes) {
      const chunk = compressed.subarray(offset, offset + entryChunkBytes);
      account(chunk);
      yield chunk;
    }
  } else {
    const inflater = createInflateRaw({ chunkSize: entryChunkBytes });
    inflater.end(compressed);
    try {
      for await (const chunk of inflater as AsyncIterable<Buffer>) {
        account(chunk);
        yield chunk;
      }
    } catch (error) {
      if (error instanceof EntryProblem) throw error;
      throw new EntryProblem({
        code: 'corrupt_entry',
        message: `${label} holds corrupt compressed data (${(error as Error).message}).`,
        entry: entry.displayName,
      });
    } finally {
      inflater.destroy();
    }
    if (inflater.bytesWritten !== compressed.length) {
      throw new EntryProblem({
        code: 'corrupt_entry',
        message: `${label}'s compressed data ends before its declared compressed size: the rest is hidden data.`,
        entry: entry.displayName,
      });
    }
  }
  if (produced !== entry.uncompressedSize) {
    throw new EntryProblem({
      code: 'size_mismatch',
      message: `${label} expands to ${produced} bytes but declares ${entry.uncompressedSize}.`,
      entry: entry.displayName,
    });
  }
  if (checksum >>> 0 !== entry.crc32 >>> 0) {
    throw new EntryProblem({
      code: 'crc_mismatch',
      message: `${label} fails its CRC check: the data is corrupt or was altered.`,
      entry: entry.displayName,
    });
  }
}

import yauzl from 'yauzl';
import type { ProblemCollector } from '../problem-collector.ts';
import type { ZipEntry } from './zip-entry.ts';

/**
 * A second opinion: lists the archive's central directory with yauzl (names kept as raw bytes, so nothing is
 * rewritten) and reports `corrupt_zip` if yauzl refuses the archive or sees different entries than our own reader.
 * Two readers that agree byte for byte leave no room for an archive that means one thing here and another to the
 * tool that later reads the stored copy.
 */
export async function crossCheckWithYauzl(
  archive: Buffer,
  options: { readonly entries: readonly ZipEntry[]; readonly problems: ProblemCollector },
): Promise<void> {
  const { entries, problems } = options;
  let zipFile: yauzl.ZipFile;
  try {
    zipFile = await yauzl.fromBufferPromise(archive, {
      lazyEntries: true,
      decodeStrings: false,
      validateEntrySizes: false,
      strictFileNames: false,
    });
  } catch (error) {
    problems.add({
      code: 'corrupt_zip',
      message: `A second zip reader refuses the archive: ${(error as Error).message}`,
    });
    return;
  }
  const seen: yauzl.Entry[] = [];
  const failure = await new Promise<Error | undefined>((resolve) => {
    zipFile.on('entry', (entry: yauzl.Entry) => {
      seen.push(entry);
      zipFile.readEntry();
    });
    zipFile.on('end', () => resolve(undefined));
    zipFile.on('error', (error: Error) => resolve(error));
    zipFile.readEntry();
  });
  zipFile.close();
  if (failure !== undefined) {
    problems.add({
      code: 'corrupt_zip',
      message: `A second zip reader refuses the archive: ${failure.message}`,
    });
    return;
  }
  const agrees =
    seen.length === entries.length &&
    seen.every((other, index) => {
      const ours = entries[index]!;
      return (
        other.fileNameRaw.equals(ours.rawName) &&
        other.relativeOffsetOfLocalHeader === ours.localHeaderOffset &&
        other.compressedSize === ours.compressedSize &&
        other.uncompressedSize === ours.uncompressedSize &&
        other.crc32 >>> 0 === ours.crc32 >>> 0 &&
        other.compressionMethod === ours.method &&
        other.generalPurposeBitFlag === ours.flags
      );
    });
  if (!agrees) {
    problems.add({
      code: 'corrupt_zip',
      message: 'Two zip readers disagree about the entries of this archive.',
    });
  }
}

import type { ProblemCollector } from '../problem-collector.ts';

const endOfCentralDirectorySignature = 0x06054b50;
const zip64LocatorSignature = 0x07064b50;
const zip64EndSignature = 0x06064b50;
const maxCommentLength = 0xffff;

/** Where an archive's central directory lies, from its end record (classic or zip64). */
export interface EndRecord {
  readonly entryCount: number;
  readonly directoryOffset: number;
  readonly directorySize: number;
  /** Where the central directory must end: the zip64 end record, or the classic end record. */
  readonly directoryEnd: number;
}

/**
 * Finds the one end of central directory record (and its zip64 record when there is one) and checks that the
 * directory it points to ends where it begins. Any ambiguity is reported as a problem and answered `undefined`.
 */
export function readEndRecord(archive: Buffer, problems: ProblemCollector): EndRecord | undefined {
  // Every candidate whose comment length reaches exactly the end of the file counts; two of them would let two
  // readers see two different archives, so that is refused rather than guessed.
  const candidates: number[] = [];
  const lowest = Math.max(0, archive.length - 22 - maxCommentLength);
  for (let offset = archive.length - 22; offset >= lowest; offset -= 1) {
    if (archive.readUInt32LE(offset) !== endOfCentralDirectorySignature) continue;
    if (offset + 22 + archive.readUInt16LE(offset + 20) === archive.length) candidates.push(offset);
  }
  if (candidates.length === 0) {
    problems.add({
      code: 'corrupt_zip',
      message: 'This is not a zip archive (no end of central directory record).',
    });
    return undefined;
  }
  if (candidates.length > 1) {
    problems.add({ code: 'corrupt_zip', message: 'The archive has several end records: it is ambiguous.' });
    return undefined;
  }
  const offset = candidates[0]!;
  const disk = archive.readUInt16LE(offset + 4);
  const directoryDisk = archive.readUInt16LE(offset + 6);
  let entriesOnDisk = archive.readUInt16LE(offset + 8);
  let entryCount = archive.readUInt16LE(offset + 10);
  let directorySize = archive.readUInt32LE(offset + 12);
  let directoryOffset = archive.readUInt32LE(offset + 16);
  let directoryEnd = offset;
  const needsZip64 =
    entryCount === 0xffff ||
    entriesOnDisk === 0xffff ||
    directorySize === 0xffffffff ||
    directoryOffset === 0xffffffff;
  const locator = offset - 20;
  if (needsZip64 || (locator >= 0 && archive.readUInt32LE(locator) === zip64LocatorSignature)) {
    if (locator < 0 || archive.readUInt32LE(locator) !== zip64LocatorSignature) {
      problems.add({ code: 'corrupt_zip', message: 'The zip64 end record locator is missing.' });
      return undefined;
    }
    const zip64Offset = readSafeUInt64(archive, locator + 8);
    if (
      zip64Offset === undefined ||
      zip64Offset + 56 > locator ||
      archive.readUInt32LE(zip64Offset) !== zip64EndSignature
    ) {
      problems.add({ code: 'corrupt_zip', message: 'The zip64 end record is missing or misplaced.' });
      return undefined;
    }
    const values = [24, 32, 40, 48].map((field) => readSafeUInt64(archive, zip64Offset + field));
    if (values.some((value) => value === undefined) || archive.readUInt32LE(zip64Offset + 16) !== 0) {
      problems.add({ code: 'corrupt_zip', message: 'The zip64 end record holds impossible values.' });
      return undefined;
    }
    [entriesOnDisk, entryCount, directorySize, directoryOffset] = values as [number, number, number, number];
    directoryEnd = zip64Offset;
  }
  if (disk !== 0 || directoryDisk !== 0 || entriesOnDisk !== entryCount) {
    problems.add({ code: 'multi_disk_zip', message: 'Multi-volume (split) zip archives are not supported.' });
    return undefined;
  }
  if (directoryOffset + directorySize !== directoryEnd) {
    problems.add({
      code: 'corrupt_zip',
      message: 'The central directory does not end where the end record begins: the archive is ambiguous.',
    });
    return undefined;
  }
  return { entryCount, directoryOffset, directorySize, directoryEnd };
}

/** A little-endian 64-bit value, or `undefined` when it is beyond what a number holds exactly. */
export function readSafeUInt64(buffer: Buffer, offset: number): number | undefined {
  const value = buffer.readBigUInt64LE(offset);
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? undefined : Number(value);
}

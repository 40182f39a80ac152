import type { ProblemCollector } from '../problem-collector.ts';
import { describeEntryName } from '../skill-bundle-error.ts';
import { readEndRecord, readSafeUInt64 } from './read-zip-end-record.ts';
import type { ZipEntry } from './zip-entry.ts';

const centralHeaderSignature = 0x02014b50;
const localHeaderSignature = 0x04034b50;
const dataDescriptorSignature = 0x08074b50;
const zip64ExtraId = 0x0001;
const unicodePathExtraId = 0x7075;
const flagDataDescriptor = 0x0008;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Options for {@link readZipDirectory}. */
export interface ReadZipDirectoryOptions {
  readonly maxEntries: number;
  readonly problems: ProblemCollector;
}

/**
 * Reads the central directory of `archive` and each entry's local header straight from the bytes, reporting every
 * disagreement between them (a zip library would quietly pick one). Returns `undefined` when the archive's
 * structure is too broken to list entries at all (the problem is reported).
 */
export function readZipDirectory(archive: Buffer, options: ReadZipDirectoryOptions): ZipEntry[] | undefined {
  const { problems } = options;
  const end = readEndRecord(archive, problems);
  if (end === undefined) return undefined;
  if (end.entryCount > options.maxEntries) {
    problems.add({
      code: 'too_many_entries',
      message: `The archive has ${end.entryCount} entries; at most ${options.maxEntries} are allowed.`,
    });
    return undefined;
  }
  const entries: ZipEntry[] = [];
  let position = end.directoryOffset;
  for (let index = 0; index < end.entryCount; index += 1) {
    if (position + 46 > end.directoryEnd || archive.readUInt32LE(position) !== centralHeaderSignature) {
      problems.add({
        code: 'corrupt_zip',
        message: `Central directory record ${index} is missing or truncated.`,
      });
      return undefined;
    }
    const nameLength = archive.readUInt16LE(position + 28);
    const extraLength = archive.readUInt16LE(position + 30);
    const commentLength = archive.readUInt16LE(position + 32);
    const recordEnd = position + 46 + nameLength + extraLength + commentLength;
    if (recordEnd > end.directoryEnd) {
      problems.add({
        code: 'corrupt_zip',
        message: `Central directory record ${index} overruns the directory.`,
      });
      return undefined;
    }
    const rawName = archive.subarray(position + 46, position + 46 + nameLength);
    const extra = archive.subarray(position + 46 + nameLength, position + 46 + nameLength + extraLength);
    const entry = readEntry({
      archive,
      index,
      position,
      rawName,
      extra,
      directoryOffset: end.directoryOffset,
      problems,
    });
    if (entry !== undefined) entries.push(entry);
    position = recordEnd;
  }
  if (position !== end.directoryEnd) {
    problems.add({
      code: 'corrupt_zip',
      message: 'The central directory holds more bytes than its records: the archive is ambiguous.',
    });
  }
  reportOverlaps(entries, problems);
  return entries;
}

interface ReadEntryInput {
  readonly archive: Buffer;
  readonly index: number;
  readonly position: number;
  readonly rawName: Buffer;
  readonly extra: Buffer;
  readonly directoryOffset: number;
  readonly problems: ProblemCollector;
}

function readEntry(input: ReadEntryInput): ZipEntry | undefined {
  const { archive, position, rawName, problems } = input;
  const name = decodeName(rawName);
  const displayName = name ?? rawName.toString('latin1');
  const entryLabel = describeEntryName(displayName);
  const report = (code: Parameters<ProblemCollector['add']>[0]['code'], message: string) =>
    problems.add({ code, message, entry: displayName });

  const extraFields = parseExtraFields(input.extra);
  if (extraFields === undefined) {
    report('corrupt_zip', `The central record of ${entryLabel} has malformed extra fields.`);
    return undefined;
  }
  const sizes = resolveZip64(
    {
      uncompressedSize: archive.readUInt32LE(position + 24),
      compressedSize: archive.readUInt32LE(position + 20),
      localHeaderOffset: archive.readUInt32LE(position + 42),
    },
    extraFields.get(zip64ExtraId),
  );
  if (sizes === undefined) {
    report('corrupt_zip', `The zip64 extra field of ${entryLabel} is malformed.`);
    return undefined;
  }
  checkUnicodePathField(extraFields.get(unicodePathExtraId), rawName, () =>
    report(
      'header_mismatch',
      `${entryLabel} carries a second, different name in a Unicode path extra field.`,
    ),
  );
  const flags = archive.readUInt16LE(position + 8);
  const method = archive.readUInt16LE(position + 10);
  const crc32 = archive.readUInt32LE(position + 16);
  const base = {
    index: input.index,
    rawName,
    name,
    displayName,
    versionMadeBy: archive.readUInt16LE(position + 4),
    flags,
    method,
    crc32,
    compressedSize: sizes.compressedSize,
    uncompressedSize: sizes.uncompressedSize,
    externalAttributes: archive.readUInt32LE(position + 38),
    localHeaderOffset: sizes.localHeaderOffset,
  };
  const unreadable = {
    ...base,
    dataStart: sizes.localHeaderOffset,
    rangeEnd: sizes.localHeaderOffset + 30,
    readable: false,
  };

  const local = sizes.localHeaderOffset;
  if (local + 30 > input.directoryOffset || archive.readUInt32LE(local) !== localHeaderSignature) {
    report('header_mismatch', `The local header of ${entryLabel} is missing or outside the archive's data.`);
    return { ...unreadable, rangeEnd: local + 1 };
  }
  const localNameLength = archive.readUInt16LE(local + 26);
  const localExtraLength = archive.readUInt16LE(local + 28);
  const dataStart = local + 30 + localNameLength + localExtraLength;
  if (dataStart > input.directoryOffset) {
    report('header_mismatch', `The local header of ${entryLabel} runs past the archive's data.`);
    return unreadable;
  }
  const localName = archive.subarray(local + 30, local + 30 + localNameLength);
  if (!localName.equals(rawName)) {
    report(
      'header_mismatch',
      `${entryLabel} is named ${describeEntryName(decodeName(localName) ?? localName.toString('latin1'))} in its local header.`,
    );
    return { ...unreadable, dataStart };
  }
  const localFlags = archive.readUInt16LE(local + 6);
  const localMethod = archive.readUInt16LE(local + 8);
  if (localFlags !== flags || localMethod !== method) {
    report(
      'header_mismatch',
      `The local header of ${entryLabel} disagrees with its central record on flags or method.`,
    );
    return { ...unreadable, dataStart };
  }
  const localExtra = parseExtraFields(archive.subarray(local + 30 + localNameLength, dataStart));
  const localSizes =
    localExtra === undefined
      ? undefined
      : resolveZip64(
          {
            uncompressedSize: archive.readUInt32LE(local + 22),
            compressedSize: archive.readUInt32LE(local + 18),
            localHeaderOffset: 0,
          },
          localExtra.get(zip64ExtraId),
        );
  if (localSizes === undefined) {
    report('corrupt_zip', `The local header of ${entryLabel} has malformed extra fields.`);
    return { ...unreadable, dataStart };
  }
  checkUnicodePathField(localExtra?.get(unicodePathExtraId), rawName, () =>
    report(
      'header_mismatch',
      `The local header of ${entryLabel} carries a different name in a Unicode path field.`,
    ),
  );
  const localCrc = archive.readUInt32LE(local + 14);
  const deferred = (flags & flagDataDescriptor) !== 0;
  const matches =
    localCrc === crc32 &&
    localSizes.compressedSize === sizes.compressedSize &&
    localSizes.uncompressedSize === sizes.uncompressedSize;
  // With a data descriptor, writers that stream leave the local values at zero; anything else must agree.
  const deferredZeros =
    deferred && localCrc === 0 && localSizes.compressedSize === 0 && localSizes.uncompressedSize === 0;
  if (!matches && !deferredZeros) {
    report(
      'header_mismatch',
      `The local header of ${entryLabel} disagrees with its central record on CRC or sizes.`,
    );
    return { ...unreadable, dataStart };
  }
  const dataEnd = dataStart + sizes.compressedSize;
  let rangeEnd = dataEnd;
  if (deferred) {
    const descriptorEnd = checkDataDescriptor({
      archive,
      dataEnd,
      limit: input.directoryOffset,
      expected: sizes,
      crc32,
    });
    if (descriptorEnd === undefined) {
      report(
        'header_mismatch',
        `The data descriptor of ${entryLabel} is missing or disagrees with its central record.`,
      );
      return { ...unreadable, dataStart };
    }
    rangeEnd = descriptorEnd;
  }
  if (rangeEnd > input.directoryOffset) {
    report('header_mismatch', `The data of ${entryLabel} runs into the central directory.`);
    return { ...unreadable, dataStart };
  }
  return { ...base, dataStart, rangeEnd, readable: true };
}

interface DescriptorCheck {
  readonly archive: Buffer;
  readonly dataEnd: number;
  readonly limit: number;
  readonly expected: { readonly compressedSize: number; readonly uncompressedSize: number };
  readonly crc32: number;
}

/** Returns where the descriptor ends when one of its four legal layouts matches the central record exactly. */
function checkDataDescriptor(check: DescriptorCheck): number | undefined {
  const { archive, dataEnd, limit, expected } = check;
  for (const signed of [true, false]) {
    for (const wide of [false, true]) {
      const start = dataEnd + (signed ? 4 : 0);
      const end = start + (wide ? 20 : 12);
      if (end > limit) continue;
      if (signed && archive.readUInt32LE(dataEnd) !== dataDescriptorSignature) continue;
      const compressed = wide ? readSafeUInt64(archive, start + 4) : archive.readUInt32LE(start + 4);
      const uncompressed = wide ? readSafeUInt64(archive, start + 12) : archive.readUInt32LE(start + 8);
      if (
        archive.readUInt32LE(start) === check.crc32 &&
        compressed === expected.compressedSize &&
        uncompressed === expected.uncompressedSize
      ) {
        return end;
      }
    }
  }
  return undefined;
}

interface DeclaredSizes {
  readonly uncompressedSize: number;
  readonly compressedSize: number;
  readonly localHeaderOffset: number;
}

function resolveZip64(sizes: DeclaredSizes, field: Buffer | undefined): DeclaredSizes | undefined {
  const needed = (['uncompressedSize', 'compressedSize', 'localHeaderOffset'] as const).filter(
    (key) => sizes[key] === 0xffffffff,
  );
  if (needed.length === 0) return sizes;
  if (field === undefined || field.length < needed.length * 8) return undefined;
  const resolved = { ...sizes };
  for (const [position, key] of needed.entries()) {
    const value = readSafeUInt64(field, position * 8);
    if (value === undefined) return undefined;
    resolved[key] = value;
  }
  return resolved;
}

function parseExtraFields(extra: Buffer): Map<number, Buffer> | undefined {
  const fields = new Map<number, Buffer>();
  let position = 0;
  while (position < extra.length) {
    if (position + 4 > extra.length) return undefined;
    const id = extra.readUInt16LE(position);
    const size = extra.readUInt16LE(position + 2);
    if (position + 4 + size > extra.length || fields.has(id)) return undefined;
    fields.set(id, extra.subarray(position + 4, position + 4 + size));
    position += 4 + size;
  }
  return fields;
}

/** Some readers prefer the Info-ZIP Unicode path field over the real name: a second name is a disguise. */
function checkUnicodePathField(field: Buffer | undefined, rawName: Buffer, onMismatch: () => void): void {
  if (field === undefined) return;
  if (field.length < 5 || !field.subarray(5).equals(rawName)) onMismatch();
}

function decodeName(raw: Buffer): string | undefined {
  try {
    return utf8.decode(raw);
  } catch {
    return undefined;
  }
}

function reportOverlaps(entries: readonly ZipEntry[], problems: ProblemCollector): void {
  const sorted = [...entries].sort((left, right) => left.localHeaderOffset - right.localHeaderOffset);
  // Compare with the entry reaching furthest so far, not just the previous one: a long entry can span several.
  let furthest: ZipEntry | undefined;
  for (const current of sorted) {
    if (furthest !== undefined && current.localHeaderOffset < furthest.rangeEnd) {
      problems.add({
        code: 'overlapping_entries',
        message: `${describeEntryName(current.displayName)} overlaps the bytes of ${describeEntryName(furthest.displayName)} (a sign of a zip bomb or a disguised archive).`,
        entry: current.displayName,
      });
    }
    if (furthest === undefined || current.rangeEnd > furthest.rangeEnd) furthest = current;
  }
}

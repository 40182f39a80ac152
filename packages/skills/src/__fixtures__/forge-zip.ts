// A tiny zip writer for tests and benchmarks that can forge every header field: it writes what it is told, even
// when that is a lie (mismatched local/central headers, wrong sizes or CRCs, overlapping entries, odd flags,
// methods and mode bits). Only for building hostile and benign archives in tests.
import { constants, crc32, deflateRawSync } from 'node:zlib';
import { type ZipEntryFields, zipCentralRecord, zipEndRecord, zipLocalHeader } from '../zip/zip-headers.ts';

/** Header fields a forged entry may override. */
export interface ForgedFields {
  readonly name?: string | Buffer;
  readonly flags?: number;
  readonly method?: number;
  readonly crc32?: number;
  readonly compressedSize?: number;
  readonly uncompressedSize?: number;
  readonly extra?: Buffer;
}

/** One entry to write. */
export interface ForgedEntry {
  readonly name: string | Buffer;
  /** Uncompressed content. */
  readonly data?: Buffer | string;
  /** 0 (stored) or 8 (deflate, the default) or anything else (written as is, data stored). */
  readonly method?: number;
  /** The bytes written as the entry's data, instead of compressing `data`. */
  readonly rawData?: Buffer;
  readonly flags?: number;
  /** Unix mode in the high 16 bits of the external attributes, e.g. 0o120777 for a symlink. */
  readonly unixMode?: number;
  readonly externalAttributes?: number;
  /** Overrides applied to both headers. */
  readonly both?: ForgedFields;
  /** Overrides applied to the central record only. */
  readonly central?: ForgedFields & { readonly localHeaderOffset?: number };
  /** Overrides applied to the local header only. */
  readonly local?: ForgedFields;
  /** Write a data descriptor after the data (and zeros in the local header), with flag bit 3. */
  readonly dataDescriptor?: boolean;
  /** The CRC written in the data descriptor, when it should differ from the central record's. */
  readonly descriptorCrc32?: number;
}

/** Options for {@link forgeZip}. */
export interface ForgeZipOptions {
  readonly comment?: Buffer | string;
  /** Bytes placed before the first entry. */
  readonly prefix?: Buffer;
  /** Extra central records appended verbatim (for records pointing at other entries' headers). */
  readonly extraCentralRecords?: (offsets: readonly number[]) => Buffer[];
}

const toBuffer = (value: Buffer | string) => (typeof value === 'string' ? Buffer.from(value, 'utf8') : value);

/** Writes a zip archive from `entries`, honouring every override. */
export function forgeZip(entries: readonly ForgedEntry[], options: ForgeZipOptions = {}): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  const offsets: number[] = [];
  let offset = 0;
  const push = (buffer: Buffer) => {
    parts.push(buffer);
    offset += buffer.length;
  };
  if (options.prefix !== undefined) push(options.prefix);
  for (const entry of entries) {
    const data = toBuffer(entry.data ?? '');
    const method = entry.method ?? 8;
    const payload = entry.rawData ?? (method === 8 ? deflateRawSync(data) : data);
    const name = toBuffer(entry.name);
    const flags = (entry.flags ?? 0x0800) | (entry.dataDescriptor ? 0x0008 : 0);
    const real = {
      name,
      flags,
      method,
      crc32: crc32(data),
      compressedSize: payload.length,
      uncompressedSize: data.length,
      extra: Buffer.alloc(0),
    };
    const both = { ...real, ...entry.both };
    const localFields = { ...both, ...entry.local };
    const centralFields = { ...both, ...entry.central };
    const localName = toBuffer(localFields.name);
    const localExtra = localFields.extra;
    const deferred = entry.dataDescriptor === true && entry.local === undefined;
    const header = zipLocalHeader({
      flags: localFields.flags,
      method: localFields.method,
      dosTime: 0,
      dosDate: 0x21,
      crc32: deferred ? 0 : localFields.crc32,
      compressedSize: deferred ? 0 : localFields.compressedSize,
      uncompressedSize: deferred ? 0 : localFields.uncompressedSize,
      nameLength: localName.length,
      extraLength: localExtra.length,
    });
    offsets.push(offset);
    const localOffset = offset;
    push(Buffer.concat([header, localName, localExtra]));
    push(payload);
    if (entry.dataDescriptor) {
      const descriptor = Buffer.alloc(16);
      descriptor.writeUInt32LE(0x08074b50, 0);
      descriptor.writeUInt32LE((entry.descriptorCrc32 ?? centralFields.crc32) >>> 0, 4);
      descriptor.writeUInt32LE(centralFields.compressedSize, 8);
      descriptor.writeUInt32LE(centralFields.uncompressedSize, 12);
      push(descriptor);
    }
    const centralName = toBuffer(centralFields.name);
    const record = zipCentralRecord(
      {
        flags: centralFields.flags,
        method: centralFields.method,
        dosTime: 0,
        dosDate: 0x21,
        crc32: centralFields.crc32,
        compressedSize: centralFields.compressedSize,
        uncompressedSize: centralFields.uncompressedSize,
        nameLength: centralName.length,
        extraLength: centralFields.extra.length,
      },
      {
        versionMadeBy: entry.unixMode === undefined ? 20 : (3 << 8) | 20,
        externalAttributes: entry.externalAttributes ?? (entry.unixMode === undefined ? 0 : entry.unixMode * 0x10000),
        localHeaderOffset: entry.central?.localHeaderOffset ?? localOffset,
      },
    );
    central.push(Buffer.concat([record, centralName, centralFields.extra]));
  }
  central.push(...(options.extraCentralRecords?.(offsets) ?? []));
  const directoryOffset = offset;
  const directory = Buffer.concat(central);
  const comment = toBuffer(options.comment ?? '');
  const end = zipEndRecord({
    entries: central.length,
    size: directory.length,
    offset: directoryOffset,
    commentLength: comment.length,
  });
  return Buffer.concat([...parts, directory, end, comment]);
}

/** A minimal valid SKILL.md. */
export function skillMarkdown(name = 'demo-skill', description = 'Does a demo thing.', body = 'Use it well.\n'): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}`;
}

/**
 * A raw deflate stream that inflates to `mebibytes` MiB of zeros, built in O(1) time per MiB by repeating one
 * sync-flushed block (every back-reference in it yields zeros, so the repeats are valid) and ending with an empty
 * final block.
 */
export function zerosDeflate(mebibytes: number): Buffer {
  const block = deflateRawSync(Buffer.alloc(1024 * 1024), { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
  const blocks = new Array<Buffer>(mebibytes).fill(block);
  return Buffer.concat([...blocks, Buffer.from([0x03, 0x00])]);
}

/** CRC-32 of `mebibytes` MiB of zeros. */
export function zerosCrc32(mebibytes: number): number {
  const zeros = Buffer.alloc(1024 * 1024);
  let value = 0;
  for (let index = 0; index < mebibytes; index += 1) value = crc32(zeros, value);
  return value;
}

/** A bomb entry's header fields: a UTF-8 name, deflate, no time or extra field; the CRC is the caller's. */
function deflatedEntry(
  name: Buffer,
  sizes: { readonly compressedSize: number; readonly uncompressedSize: number },
): Omit<ZipEntryFields, 'crc32'> {
  return {
    flags: 0x0800,
    method: 8,
    dosTime: 0,
    dosDate: 0,
    compressedSize: sizes.compressedSize,
    uncompressedSize: sizes.uncompressedSize,
    nameLength: name.length,
    extraLength: 0,
  };
}

/** One central record pointing at `localHeaderOffset`, for "many records, one header" overlap bombs. */
export function centralRecord(options: {
  readonly name: string;
  readonly localHeaderOffset: number;
  readonly crc32: number;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
}): Buffer {
  const name = Buffer.from(options.name);
  const record = zipCentralRecord(
    { ...deflatedEntry(name, options), crc32: options.crc32 },
    { versionMadeBy: 20, externalAttributes: 0, localHeaderOffset: options.localHeaderOffset },
  );
  return Buffer.concat([record, name]);
}

/**
 * David Fifield's overlapping zip bomb (https://www.bamsoftware.com/hacks/zipbomb/): `files` entries, each one's
 * deflate data "quotes" the next entry's local header in a stored block and then runs on into the next entry's
 * data, all ending in one shared kernel of `kernelMebibytes` MiB of zeros. Total expansion ≈ files × kernel.
 * CRCs are left at zero: computing real ones is slow, and readers that check overlap refuse before any CRC.
 */
export function overlappingBomb(options: { readonly files: number; readonly kernelMebibytes: number }): Buffer {
  const kernel = zerosDeflate(options.kernelMebibytes);
  const kernelSize = options.kernelMebibytes * 1024 * 1024;
  // Built from the last file backwards: each file's data = quote(next header) + next header + next data.
  const names = Array.from({ length: options.files }, (_, index) => `bomb/${String(index).padStart(4, '0')}.txt`);
  const headers: Buffer[] = new Array(options.files);
  const compressed: number[] = new Array(options.files);
  const uncompressed: number[] = new Array(options.files);
  const localHeader = (name: string, compressedSize: number, uncompressedSize: number) => {
    const nameBytes = Buffer.from(name);
    const header = zipLocalHeader({
      ...deflatedEntry(nameBytes, { compressedSize, uncompressedSize: Math.min(uncompressedSize, 0xfffffffe) }),
      crc32: 0,
    });
    return Buffer.concat([header, nameBytes]);
  };
  for (let index = options.files - 1; index >= 0; index -= 1) {
    if (index === options.files - 1) {
      compressed[index] = kernel.length;
      uncompressed[index] = kernelSize;
    } else {
      const next = headers[index + 1]!;
      compressed[index] = 5 + next.length + compressed[index + 1]!;
      uncompressed[index] = next.length + uncompressed[index + 1]!;
    }
    headers[index] = localHeader(names[index]!, compressed[index]!, uncompressed[index]!);
  }
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let offset = 0;
  for (let index = 0; index < options.files; index += 1) {
    offsets.push(offset);
    parts.push(headers[index]!);
    offset += headers[index]!.length;
    if (index < options.files - 1) {
      const quoted = headers[index + 1]!.length;
      const quote = Buffer.from([0x00, quoted & 0xff, quoted >> 8, ~quoted & 0xff, (~quoted >> 8) & 0xff]);
      parts.push(quote);
      offset += quote.length;
    }
  }
  parts.push(kernel);
  offset += kernel.length;
  const directory = Buffer.concat(
    names.map((name, index) =>
      centralRecord({
        name,
        localHeaderOffset: offsets[index]!,
        crc32: 0,
        compressedSize: compressed[index]!,
        uncompressedSize: Math.min(uncompressed[index]!, 0xfffffffe),
      }),
    ),
  );
  const end = zipEndRecord({ entries: options.files, size: directory.length, offset, commentLength: 0 });
  return Buffer.concat([...parts, directory, end]);
}

// A tiny zip writer for tests and benchmarks that can forge every header field: it writes what it is told, even
// when that is a lie (mismatched local/central headers, wrong sizes or CRCs, overlapping entries, odd flags,
// methods and mode bits). Only for building hostile and benign archives in tests.
import { constants, crc32, deflateRawSync } from 'node:zlib';

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
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(localFields.flags, 6);
    header.writeUInt16LE(localFields.method, 8);
    header.writeUInt16LE(0, 10);
    header.writeUInt16LE(0x21, 12);
    const deferred = entry.dataDescriptor === true && entry.local === undefined;
    header.writeUInt32LE(deferred ? 0 : localFields.crc32 >>> 0, 14);
    header.writeUInt32LE(deferred ? 0 : localFields.compressedSize, 18);
    header.writeUInt32LE(deferred ? 0 : localFields.uncompressedSize, 22);
    header.writeUInt16LE(localName.length, 26);
    header.writeUInt16LE(localExtra.length, 28);
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
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(entry.unixMode === undefined ? 20 : (3 << 8) | 20, 4);
    record.writeUInt16LE(20, 6);
    record.writeUInt16LE(centralFields.flags, 8);
    record.writeUInt16LE(centralFields.method, 10);
    record.writeUInt16LE(0, 12);
    record.writeUInt16LE(0x21, 14);
    record.writeUInt32LE(centralFields.crc32 >>> 0, 16);
    record.writeUInt32LE(centralFields.compressedSize, 20);
    record.writeUInt32LE(centralFields.uncompressedSize, 24);
    record.writeUInt16LE(centralName.length, 28);
    record.writeUInt16LE(centralFields.extra.length, 30);
    record.writeUInt32LE(
      (entry.externalAttributes ?? (entry.unixMode === undefined ? 0 : entry.unixMode * 0x10000)) >>> 0,
      38,
    );
    record.writeUInt32LE(entry.central?.localHeaderOffset ?? localOffset, 42);
    central.push(Buffer.concat([record, centralName, centralFields.extra]));
  }
  central.push(...(options.extraCentralRecords?.(offsets) ?? []));
  const directoryOffset = offset;
  const directory = Buffer.concat(central);
  const comment = toBuffer(options.comment ?? '');
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(central.length, 8);
  end.writeUInt16LE(central.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(directoryOffset, 16);
  end.writeUInt16LE(comment.length, 20);
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

/** One central record pointing at `localHeaderOffset`, for "many records, one header" overlap bombs. */
export function centralRecord(options: {
  readonly name: string;
  readonly localHeaderOffset: number;
  readonly crc32: number;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
}): Buffer {
  const name = Buffer.from(options.name);
  const record = Buffer.alloc(46);
  record.writeUInt32LE(0x02014b50, 0);
  record.writeUInt16LE(20, 4);
  record.writeUInt16LE(20, 6);
  record.writeUInt16LE(0x0800, 8);
  record.writeUInt16LE(8, 10);
  record.writeUInt32LE(options.crc32 >>> 0, 16);
  record.writeUInt32LE(options.compressedSize, 20);
  record.writeUInt32LE(options.uncompressedSize, 24);
  record.writeUInt16LE(name.length, 28);
  record.writeUInt32LE(options.localHeaderOffset, 42);
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
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(0x0800, 6);
    header.writeUInt16LE(8, 8);
    header.writeUInt32LE(compressedSize, 18);
    header.writeUInt32LE(Math.min(uncompressedSize, 0xfffffffe), 22);
    header.writeUInt16LE(nameBytes.length, 26);
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
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(options.files, 8);
  end.writeUInt16LE(options.files, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, directory, end]);
}

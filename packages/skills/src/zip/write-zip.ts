import { promisify } from 'node:util';
import { crc32, deflateRaw } from 'node:zlib';

const deflate = promisify(deflateRaw);
/** 1980-01-01 00:00:00 in DOS format: fixed, so the same files always give the same bytes. */
const dosTime = 0;
const dosDate = (0 << 9) | (1 << 5) | 1;
const flagUtf8 = 0x0800;
const regularFileMode = 0o100644;

/** One file to write into a zip. */
export interface ZipFileInput {
  readonly path: string;
  readonly data: Buffer;
}

/**
 * Writes a plain, deterministic zip: entries in the order given, UTF-8 names, fixed timestamps, regular-file mode
 * 0644, deflate when it saves space (stored otherwise), no extra fields, no data descriptors, no zip64 (sizes past
 * 4 GiB are refused; bundles are capped far below). Yields the archive in pieces: one file in memory at a time.
 */
export async function* writeZip(
  files: AsyncIterable<ZipFileInput> | Iterable<ZipFileInput>,
): AsyncGenerator<Buffer> {
  const central: Buffer[] = [];
  let offset = 0;
  let count = 0;
  for await (const file of files) {
    const name = Buffer.from(file.path, 'utf8');
    const compressed = await deflate(file.data, { level: 9 });
    const method = compressed.length < file.data.length ? 8 : 0;
    const payload = method === 8 ? compressed : file.data;
    if (offset + payload.length > 0xfffffff0 || file.data.length > 0xfffffff0)
      throw new RangeError('zip too large');
    const checksum = crc32(file.data);
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(flagUtf8, 6);
    header.writeUInt16LE(method, 8);
    header.writeUInt16LE(dosTime, 10);
    header.writeUInt16LE(dosDate, 12);
    header.writeUInt32LE(checksum, 14);
    header.writeUInt32LE(payload.length, 18);
    header.writeUInt32LE(file.data.length, 22);
    header.writeUInt16LE(name.length, 26);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE((3 << 8) | 20, 4);
    record.writeUInt16LE(20, 6);
    record.writeUInt16LE(flagUtf8, 8);
    record.writeUInt16LE(method, 10);
    record.writeUInt16LE(dosTime, 12);
    record.writeUInt16LE(dosDate, 14);
    record.writeUInt32LE(checksum, 16);
    record.writeUInt32LE(payload.length, 20);
    record.writeUInt32LE(file.data.length, 24);
    record.writeUInt16LE(name.length, 28);
    record.writeUInt32LE((regularFileMode * 0x10000) >>> 0, 38);
    record.writeUInt32LE(offset, 42);
    central.push(record, name);
    yield Buffer.concat([header, name]);
    yield payload;
    offset += 30 + name.length + payload.length;
    count += 1;
  }
  if (count > 0xffff) throw new RangeError('too many zip entries');
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  yield Buffer.concat([directory, end]);
}

import { promisify } from 'node:util';
import { crc32, deflateRaw } from 'node:zlib';
import { zipCentralRecord, zipEndRecord, zipLocalHeader } from './zip-headers.ts';

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
    const fields = {
      flags: flagUtf8,
      method,
      dosTime,
      dosDate,
      crc32: crc32(file.data),
      compressedSize: payload.length,
      uncompressedSize: file.data.length,
      nameLength: name.length,
      extraLength: 0,
    };
    const header = zipLocalHeader(fields);
    const record = zipCentralRecord(fields, {
      versionMadeBy: (3 << 8) | 20,
      externalAttributes: regularFileMode * 0x10000,
      localHeaderOffset: offset,
    });
    central.push(record, name);
    yield Buffer.concat([header, name]);
    yield payload;
    offset += 30 + name.length + payload.length;
    count += 1;
  }
  if (count > 0xffff) throw new RangeError('too many zip entries');
  const directory = Buffer.concat(central);
  const end = zipEndRecord({ entries: count, size: directory.length, offset, commentLength: 0 });
  yield Buffer.concat([directory, end]);
}

// The fixed parts of a zip archive's records (APPNOTE 4.3.7, 4.3.12, 4.3.16), written in one place: the writer's
// plain archives and the tests' forged ones lay out the same bytes. The central record repeats the local header's
// fields from "version needed" on, two bytes further in, so both are written from the same fields.

/** The fields a local header and its central record share. The caller chooses every value (a forger may lie). */
export interface ZipEntryFields {
  readonly flags: number;
  readonly method: number;
  readonly dosTime: number;
  readonly dosDate: number;
  readonly crc32: number;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
  readonly nameLength: number;
  readonly extraLength: number;
}

/** What only the central record says about an entry. */
export interface ZipCentralFields {
  /** Version made by: its high byte is the host (3 = Unix, which makes the external attributes a mode). */
  readonly versionMadeBy: number;
  readonly externalAttributes: number;
  readonly localHeaderOffset: number;
}

/** Version needed to extract: 2.0 (deflate). */
const versionNeeded = 20;

function writeEntryFields(record: Buffer, at: number, fields: ZipEntryFields): Buffer {
  record.writeUInt16LE(versionNeeded, at);
  record.writeUInt16LE(fields.flags, at + 2);
  record.writeUInt16LE(fields.method, at + 4);
  record.writeUInt16LE(fields.dosTime, at + 6);
  record.writeUInt16LE(fields.dosDate, at + 8);
  record.writeUInt32LE(fields.crc32 >>> 0, at + 10);
  record.writeUInt32LE(fields.compressedSize, at + 14);
  record.writeUInt32LE(fields.uncompressedSize, at + 18);
  record.writeUInt16LE(fields.nameLength, at + 22);
  record.writeUInt16LE(fields.extraLength, at + 24);
  return record;
}

/** A local file header (30 bytes; its name and extra field follow it). */
export function zipLocalHeader(fields: ZipEntryFields): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  return writeEntryFields(header, 4, fields);
}

/** A central directory record (46 bytes; its name and extra field follow it). No comment, disk 0. */
export function zipCentralRecord(fields: ZipEntryFields, central: ZipCentralFields): Buffer {
  const record = Buffer.alloc(46);
  record.writeUInt32LE(0x02014b50, 0);
  record.writeUInt16LE(central.versionMadeBy, 4);
  writeEntryFields(record, 6, fields);
  record.writeUInt32LE(central.externalAttributes >>> 0, 38);
  record.writeUInt32LE(central.localHeaderOffset, 42);
  return record;
}

/** The end of central directory record (22 bytes; its comment follows it). One disk. */
export function zipEndRecord(directory: {
  readonly entries: number;
  readonly size: number;
  readonly offset: number;
  readonly commentLength: number;
}): Buffer {
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(directory.entries, 8);
  end.writeUInt16LE(directory.entries, 10);
  end.writeUInt32LE(directory.size, 12);
  end.writeUInt32LE(directory.offset, 16);
  end.writeUInt16LE(directory.commentLength, 20);
  return end;
}

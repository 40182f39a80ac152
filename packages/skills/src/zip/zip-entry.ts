/** One entry of a zip as read from the raw bytes, after its local header was compared with its central record. */
export interface ZipEntry {
  /** Position in the central directory. */
  readonly index: number;
  /** The name's bytes exactly as stored (never rewritten). */
  readonly rawName: Buffer;
  /** The name decoded as strict UTF-8; `undefined` when the bytes are not valid UTF-8. */
  readonly name: string | undefined;
  /** A printable rendering of the name for messages, even when it is not valid UTF-8. */
  readonly displayName: string;
  readonly versionMadeBy: number;
  readonly flags: number;
  readonly method: number;
  readonly crc32: number;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
  readonly externalAttributes: number;
  readonly localHeaderOffset: number;
  /** Offset of the first byte of the (compressed) data. */
  readonly dataStart: number;
  /** End (exclusive) of the bytes this entry owns: local header, data and data descriptor. */
  readonly rangeEnd: number;
  /** False when the entry's headers disagree or do not fit; such an entry is never inflated. */
  readonly readable: boolean;
}

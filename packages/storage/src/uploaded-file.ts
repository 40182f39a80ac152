/** Metadata of an uploaded file. The bytes are read separately (`files.readContent`). */
export interface UploadedFile {
  readonly id: string;
  readonly userId: string;
  readonly name: string;
  readonly mediaType: string;
  readonly sizeBytes: number;
  /** Hex SHA-256 of the bytes. */
  readonly sha256: string;
  /** The organisation the file belongs to (its owner acted in it). */
  readonly organizationId: string;
  readonly createdAt: string;
}

/** What storing an uploaded file takes. */
export interface NewUploadedFile {
  readonly userId: string;
  /** Default the default organisation. */
  readonly organizationId?: string;
  readonly name: string;
  readonly mediaType: string;
  readonly content: Uint8Array;
}

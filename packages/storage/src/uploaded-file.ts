import type { StoredRow } from './sql/camel-columns.ts';

/** Metadata of an uploaded file. The bytes are read separately (`files.readContent`). */
export type UploadedFile = StoredRow<'uploaded_files'>;

/** What storing an uploaded file takes. */
export interface NewUploadedFile {
  readonly userId: string;
  /** Default the default organisation. */
  readonly organizationId?: string;
  readonly name: string;
  readonly mediaType: string;
  readonly content: Uint8Array;
}

import type { Creating, StoredRow } from './sql/camel-columns.ts';

/** Metadata of an uploaded file. The bytes are read separately (`files.readContent`). */
export type UploadedFile = StoredRow<'uploaded_files'>;

/** What storing an uploaded file takes (size and hash are the content's); the organisation defaults to the default one. */
export type NewUploadedFile = Creating<UploadedFile, 'userId' | 'name' | 'mediaType', 'organizationId'> & {
  readonly content: Uint8Array;
};

import { createHash } from 'node:crypto';
import { DEFAULT_ORGANIZATION_ID } from '../organization.ts';
import type { UploadedFileStore } from '../storage.ts';
import type { UploadedFile } from '../uploaded-file.ts';
import { inTransaction, type SqliteContext, withConstraintErrors } from './sqlite-context.ts';

interface FileRow {
  id: string;
  user_id: string;
  name: string;
  media_type: string;
  size_bytes: number;
  sha256: string;
  organization_id: string;
  created_at: string;
}

/**
 * Uploaded files over SQLite. The bytes live in a BLOB column of their own table (`uploaded_file_contents`), not
 * in a directory: one file to back up, written in the same transaction as the metadata, and it works for
 * `:memory:` databases. Listing never loads the bytes.
 */
export function createSqliteUploadedFileStore(context: SqliteContext): UploadedFileStore {
  const { database } = context;
  const insert = database.prepare(
    'INSERT INTO uploaded_files (id, user_id, name, media_type, size_bytes, sha256, created_at, organization_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const insertContent = database.prepare(
    'INSERT INTO uploaded_file_contents (file_id, content) VALUES (?, ?)',
  );
  const selectById = database.prepare('SELECT * FROM uploaded_files WHERE id = ?');
  const selectContent = database.prepare('SELECT content FROM uploaded_file_contents WHERE file_id = ?');
  const selectForUser = database.prepare(
    'SELECT * FROM uploaded_files WHERE user_id = ? ORDER BY created_at, rowid',
  );
  const deleteById = database.prepare('DELETE FROM uploaded_files WHERE id = ?');
  const read = (id: string): UploadedFile | undefined => {
    const row = selectById.get(id) as FileRow | undefined;
    return row && toFile(row);
  };
  return {
    async put(file) {
      const id = context.newId();
      const sha256 = createHash('sha256').update(file.content).digest('hex');
      inTransaction(database, () =>
        withConstraintErrors('Storing an uploaded file', () => {
          insert.run(
            id,
            file.userId,
            file.name,
            file.mediaType,
            file.content.byteLength,
            sha256,
            context.now(),
            file.organizationId ?? DEFAULT_ORGANIZATION_ID,
          );
          insertContent.run(id, file.content);
        }),
      );
      return read(id)!;
    },
    async get(id) {
      return read(id);
    },
    async readContent(id) {
      const row = selectContent.get(id) as { content: Uint8Array } | undefined;
      return row?.content;
    },
    async listForUser(userId) {
      return (selectForUser.all(userId) as unknown as FileRow[]).map(toFile);
    },
    async delete(id) {
      return Number(deleteById.run(id).changes) > 0;
    },
  };
}

function toFile(row: FileRow): UploadedFile {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    mediaType: row.media_type,
    sizeBytes: row.size_bytes,
    sha256: row.sha256,
    organizationId: row.organization_id,
    createdAt: row.created_at,
  };
}

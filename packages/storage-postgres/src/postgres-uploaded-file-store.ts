import { createHash } from 'node:crypto';
import { DEFAULT_ORGANIZATION_ID, type UploadedFile, type UploadedFileStore } from '@toolbus/storage';
import { isoTime, type PostgresContext, withConstraintErrors } from './postgres-context.ts';

interface FileRow {
  id: string;
  user_id: string;
  name: string;
  media_type: string;
  size_bytes: string;
  sha256: string;
  created_at: Date;
  organization_id: string;
}

const columns = 'id, user_id, name, media_type, size_bytes, sha256, organization_id, created_at';

/**
 * Uploaded files over PostgreSQL: the bytes in a `bytea` column of their own table, written in the same
 * transaction as the metadata, so every replica reads the same files with no shared disk. Listing never loads them.
 */
export function createPostgresUploadedFileStore(context: PostgresContext): UploadedFileStore {
  const { pool } = context;
  const read = async (id: string): Promise<UploadedFile | undefined> => {
    const { rows } = await pool.query<FileRow>(`SELECT ${columns} FROM uploaded_files WHERE id = $1`, [id]);
    return rows[0] && toFile(rows[0]);
  };
  return {
    async put(file) {
      const id = context.newId();
      const sha256 = createHash('sha256').update(file.content).digest('hex');
      const row = await context.transaction((client) =>
        withConstraintErrors('Storing an uploaded file', async () => {
          const { rows } = await client.query<FileRow>(
            `INSERT INTO uploaded_files (id, user_id, name, media_type, size_bytes, sha256, created_at, organization_id)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${columns}`,
            [
              id,
              file.userId,
              file.name,
              file.mediaType,
              file.content.byteLength,
              sha256,
              context.now(),
              file.organizationId ?? DEFAULT_ORGANIZATION_ID,
            ],
          );
          await client.query('INSERT INTO uploaded_file_contents (file_id, content) VALUES ($1, $2)', [
            id,
            Buffer.from(file.content.buffer, file.content.byteOffset, file.content.byteLength),
          ]);
          return rows[0]!;
        }),
      );
      return toFile(row);
    },
    get: read,
    async readContent(id) {
      const { rows } = await pool.query<{ content: Buffer }>(
        'SELECT content FROM uploaded_file_contents WHERE file_id = $1',
        [id],
      );
      const content = rows[0]?.content;
      // A plain Uint8Array, as the SQLite store returns: callers must not depend on Buffer's extras.
      return content && new Uint8Array(content.buffer, content.byteOffset, content.byteLength);
    },
    async listForUser(userId) {
      const { rows } = await pool.query<FileRow>(
        `SELECT ${columns} FROM uploaded_files WHERE user_id = $1 ORDER BY created_at, ordinal`,
        [userId],
      );
      return rows.map(toFile);
    },
    async delete(id) {
      return ((await pool.query('DELETE FROM uploaded_files WHERE id = $1', [id])).rowCount ?? 0) > 0;
    },
  };
}

function toFile(row: FileRow): UploadedFile {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    mediaType: row.media_type,
    sizeBytes: Number(row.size_bytes),
    sha256: row.sha256,
    organizationId: row.organization_id,
    createdAt: isoTime(row.created_at),
  };
}

import { createHash } from 'node:crypto';
import { DEFAULT_ORGANIZATION_ID } from '../organization.ts';
import { camelColumns } from '../sql/camel-columns.ts';
import { deleteRows, type StoreContext, withStoreConstraintErrors } from '../sql/store-context.ts';
import type { UploadedFileStore } from '../storage.ts';

const columns = camelColumns(
  'id',
  'user_id',
  'name',
  'media_type',
  'size_bytes',
  'sha256',
  'organization_id',
  'created_at',
);

/**
 * Uploaded files, the bytes in a table of their own, not a directory: one database to back up, written with the
 * metadata in one transaction. Listing never loads them.
 */
export function createUploadedFileStore(context: StoreContext): UploadedFileStore {
  const { db } = context;
  return withStoreConstraintErrors('files', {
    async put(file) {
      const id = context.newId();
      return context.transaction(async (trx) => {
        const stored = await trx
          .insertInto('uploaded_files')
          .values({
            id,
            user_id: file.userId,
            name: file.name,
            media_type: file.mediaType,
            size_bytes: file.content.byteLength,
            sha256: createHash('sha256').update(file.content).digest('hex'),
            created_at: context.now(),
            organization_id: file.organizationId ?? DEFAULT_ORGANIZATION_ID,
          })
          .returning(columns)
          .executeTakeFirstOrThrow();
        await trx
          .insertInto('uploaded_file_contents')
          .values({ file_id: id, content: file.content })
          .execute();
        return stored;
      });
    },
    async get(id) {
      return db.selectFrom('uploaded_files').select(columns).where('id', '=', id).executeTakeFirst();
    },
    async readContent(id) {
      const row = await db
        .selectFrom('uploaded_file_contents')
        .select('content')
        .where('file_id', '=', id)
        .executeTakeFirst();
      return row?.content;
    },
    async listForUser(userId) {
      return db
        .selectFrom('uploaded_files')
        .select(columns)
        .where('user_id', '=', userId)
        .orderBy(context.oldestFirst)
        .execute();
    },
    async delete(id) {
      return deleteRows(db, 'uploaded_files', { id });
    },
  });
}

import type { MigrationTarget } from '@toolbus/storage/backend';
import { sql } from 'kysely';
import { checkBlobKey } from './blob-key.ts';
import type { BlobStore } from './blob-store.ts';
import { SkillBundleError } from './skill-bundle-error.ts';

/** How much of a blob `get` yields at a time. */
const pieceBytes = 256 * 1024;

/**
 * A {@link BlobStore} in the database, one row of `toolbus_skill_blobs` (key → bytes) per blob: where replicas on
 * one PostgreSQL database keep the skills' bundles, so every replica reads the bundle any of them stored. The table
 * is made by the registry's migration on PostgreSQL (skill-registry-migrations.ts), so the registry opens first.
 * A blob is collected whole (bundles are bounded by the upload limits) and written by one statement, so a reader
 * sees the whole blob or none, and a write that fails midway leaves nothing. Keys are checked as the filesystem
 * store checks them.
 */
export function sqlBlobStore(target: Pick<MigrationTarget, 'db'>): BlobStore {
  const { db } = target;
  return {
    async put(key, data) {
      checkBlobKey(key);
      const pieces: Uint8Array[] = [];
      for await (const piece of data instanceof Uint8Array ? [data] : data) pieces.push(piece);
      const bytes = Buffer.concat(pieces);
      await sql`INSERT INTO toolbus_skill_blobs (key, data, size) VALUES (${key}, ${bytes}, ${bytes.byteLength})
        ON CONFLICT (key) DO UPDATE SET data = excluded.data, size = excluded.size`.execute(db);
      return { size: bytes.byteLength };
    },
    async get(key) {
      checkBlobKey(key);
      const { rows } = await sql<{ data: Uint8Array }>`SELECT data FROM toolbus_skill_blobs
        WHERE key = ${key}`.execute(db);
      const data = rows[0]?.data;
      if (data === undefined) {
        throw new SkillBundleError({ code: 'blob_not_found', message: `No stored bundle under "${key}".` });
      }
      return (async function* () {
        for (let start = 0; start < data.byteLength; start += pieceBytes) {
          yield data.subarray(start, start + pieceBytes);
        }
      })();
    },
    async delete(key) {
      checkBlobKey(key);
      await sql`DELETE FROM toolbus_skill_blobs WHERE key = ${key}`.execute(db);
    },
    async has(key) {
      // As the filesystem store: a key no store takes is not there.
      try {
        checkBlobKey(key);
      } catch {
        return false;
      }
      const { rows } = await sql`SELECT 1 AS found FROM toolbus_skill_blobs WHERE key = ${key}`.execute(db);
      return rows.length > 0;
    },
  };
}

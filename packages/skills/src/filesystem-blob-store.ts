import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { checkBlobKey } from './blob-key.ts';
import type { BlobStore } from './blob-store.ts';
import { SkillBundleError } from './skill-bundle-error.ts';

/** Options for {@link createFilesystemBlobStore}. */
export interface FilesystemBlobStoreOptions {
  /** Root folder of the store; created when missing. */
  readonly directory: string;
}

/**
 * A {@link BlobStore} on the local filesystem. Writes go to a temporary file in the same folder (opened with
 * O_EXCL), are flushed to disk, then renamed over the key, so a crash never leaves half a blob under a key.
 * Blobs are readable by the owner only.
 */
export function createFilesystemBlobStore(options: FilesystemBlobStoreOptions): BlobStore {
  const pathOf = (key: string) => join(options.directory, checkBlobKey(key));
  return {
    async put(key, data) {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      const temporary = join(dirname(path), `.tmp-${randomUUID()}`);
      const handle = await open(temporary, 'wx', 0o600);
      let size = 0;
      try {
        const chunks = data instanceof Uint8Array ? [data] : data;
        for await (const chunk of chunks) {
          await handle.write(chunk);
          size += chunk.byteLength;
        }
        await handle.sync();
        await handle.close();
        await rename(temporary, path);
      } catch (error) {
        await handle.close().catch(() => undefined);
        await rm(temporary, { force: true });
        throw error;
      }
      return { size };
    },
    async get(key) {
      const path = pathOf(key);
      try {
        const info = await stat(path);
        if (!info.isFile()) throw new Error('not a file');
      } catch (error) {
        throw new SkillBundleError({
          code: 'blob_not_found',
          message: `No stored bundle under "${key}".`,
          cause: error,
        });
      }
      return createReadStream(path);
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
    async has(key) {
      try {
        return (await stat(pathOf(key))).isFile();
      } catch {
        return false;
      }
    },
  };
}

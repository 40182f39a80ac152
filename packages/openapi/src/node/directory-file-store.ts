import { randomUUID } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileReference } from '@toolbus/spec';
import type { OpenApiFileInput, OpenApiFileStore } from '../file-store.ts';

/** Options for {@link createDirectoryFileStore}. */
export interface DirectoryFileStoreOptions {
  /** Where files go; created when missing. */
  readonly directory: string;
}

/** A file store on disk, readable back by id. */
export interface DirectoryFileStore extends OpenApiFileStore {
  /** The file with this id, or undefined (also for ids this store could not have made). */
  get(fileId: string): Promise<OpenApiFileInput | undefined>;
}

const fileIdPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * An {@link OpenApiFileStore} that keeps each file in `directory` as `<id>` (the bytes) and `<id>.json` (name and
 * media type). Ids are random UUIDs chosen here, never names from the API, so a hostile file name cannot choose
 * where a file lands; `get` refuses anything that is not such an id.
 */
export function createDirectoryFileStore(options: DirectoryFileStoreOptions): DirectoryFileStore {
  const ready = mkdir(options.directory, { recursive: true, mode: 0o700 });
  return {
    async save(file): Promise<FileReference> {
      await ready;
      const fileId = randomUUID();
      await writeFile(join(options.directory, fileId), file.bytes, { mode: 0o600, flag: 'wx' });
      const metadata = { name: file.name, mediaType: file.mediaType };
      await writeFile(join(options.directory, `${fileId}.json`), JSON.stringify(metadata), {
        mode: 0o600,
        flag: 'wx',
      });
      return { fileId, name: file.name, mediaType: file.mediaType, sizeBytes: file.bytes.byteLength };
    },
    async get(fileId) {
      if (!fileIdPattern.test(fileId)) return undefined;
      await ready;
      try {
        const [bytes, metadataText] = await Promise.all([
          readFile(join(options.directory, fileId)),
          readFile(join(options.directory, `${fileId}.json`), 'utf8'),
        ]);
        const metadata = JSON.parse(metadataText) as { name: string; mediaType: string };
        return { name: metadata.name, mediaType: metadata.mediaType, bytes: new Uint8Array(bytes) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
  };
}

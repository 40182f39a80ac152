import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { BlobStore } from './blob-store.ts';
import { createFilesystemBlobStore } from './filesystem-blob-store.ts';
import type { SkillRegistry } from './skill-registry.ts';
import { openSqliteSkillRegistry } from './sqlite-skill-registry.ts';

/**
 * The skill stores of one data folder (created with mode 0700): the registry at `skills.sqlite` and the bundles
 * under `blobs/`. The `skills` command and `toolbus serve` open the same folder this way.
 */
export async function openSkillStores(
  dataDirectory: string,
): Promise<{ readonly registry: SkillRegistry; readonly blobStore: BlobStore }> {
  await mkdir(dataDirectory, { recursive: true, mode: 0o700 });
  return {
    registry: await openSqliteSkillRegistry({ database: join(dataDirectory, 'skills.sqlite') }),
    blobStore: createFilesystemBlobStore({ directory: join(dataDirectory, 'blobs') }),
  };
}

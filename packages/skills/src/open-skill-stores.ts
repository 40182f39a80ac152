import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { MigrationTarget } from '@toolbus/storage/backend';
import type { BlobStore } from './blob-store.ts';
import { createFilesystemBlobStore } from './filesystem-blob-store.ts';
import type { SkillRegistry } from './skill-registry.ts';
import { sqlBlobStore } from './sql-blob-store.ts';
import { openSqlSkillRegistry } from './sql-skill-registry.ts';
import { openSqliteSkillRegistry } from './sqlite-skill-registry.ts';

/** A registry and the blob store holding its skills' bundles; `close` ends their connections. */
export interface SkillStores {
  readonly registry: SkillRegistry;
  readonly blobStore: BlobStore;
  close(): Promise<void>;
}

/**
 * The skill stores of one data folder (created with mode 0700): the registry at `skills.sqlite` and the bundles
 * under `blobs/`. The `skills` command and `toolbus serve` open the same folder this way when storage is SQLite.
 */
export async function openSkillStores(dataDirectory: string): Promise<SkillStores> {
  await mkdir(dataDirectory, { recursive: true, mode: 0o700 });
  const registry = await openSqliteSkillRegistry({ database: join(dataDirectory, 'skills.sqlite') });
  return {
    registry,
    blobStore: createFilesystemBlobStore({ directory: join(dataDirectory, 'blobs') }),
    close: () => registry.close(),
  };
}

/**
 * The skill stores in a server database (PostgreSQL, shared by replicas): the registry and the bundles in its
 * tables, on `target`'s builder, which `close` destroys.
 */
export async function openSqlSkillStores(target: MigrationTarget): Promise<SkillStores> {
  const registry = await openSqlSkillRegistry(target);
  return { registry, blobStore: sqlBlobStore(target), close: () => registry.close() };
}

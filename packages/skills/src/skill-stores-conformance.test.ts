// The skill registry and blob store conformance suites (the same ones the PostgreSQL stores run, in
// @toolbus/storage-postgres) against the SQLite registry file and the filesystem blob folder.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFilesystemBlobStore } from './filesystem-blob-store.ts';
import { openSqliteSkillRegistry } from './sqlite-skill-registry.ts';
import { describeBlobStoreConformance, describeSkillRegistryConformance } from './testing/index.ts';

describeSkillRegistryConformance({
  name: 'SQLite',
  async openRegistry() {
    const directory = await mkdtemp(join(tmpdir(), 'toolbus-skill-registry-'));
    const database = join(directory, 'skills.sqlite');
    const opened = [await openSqliteSkillRegistry({ database })];
    return {
      registry: opened[0] as (typeof opened)[number],
      async openAnother() {
        const another = await openSqliteSkillRegistry({ database });
        opened.push(another);
        return another;
      },
      async close() {
        for (const registry of opened) await registry.close();
        await rm(directory, { recursive: true, force: true });
      },
    };
  },
});

describeBlobStoreConformance({
  name: 'filesystem',
  async openBlobStore() {
    const directory = await mkdtemp(join(tmpdir(), 'toolbus-blobs-'));
    return {
      blobStore: createFilesystemBlobStore({ directory: join(directory, 'blobs') }),
      close: () => rm(directory, { recursive: true, force: true }),
    };
  },
});

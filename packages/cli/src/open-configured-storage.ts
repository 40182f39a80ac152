import { existsSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { copyMissingSkills, openSkillStores, type SkillStores } from '@toolbus/skills';
import { openStorage, type Storage } from '@toolbus/storage';
import { type DocumentSearchIndex, openDocumentIndex } from '@toolbus/tools';
import { type CliConfig, skillsDataDirectory } from './cli-config.ts';

/**
 * Opens the storage the config chooses: PostgreSQL when a storage URL is configured (`TOOLBUS_STORAGE_URL`,
 * `storage.urlEnv`, `storage.url`), else the embedded SQLite file under the toolbus home. The PostgreSQL backend is
 * loaded only then, so the embedded default never loads the pg driver. Secrets are sealed with `TOOLBUS_SECRET_KEY`,
 * else the home's key file (several replicas must share `TOOLBUS_SECRET_KEY`).
 */
export async function openConfiguredStorage(config: CliConfig): Promise<Storage> {
  const url = config.storageUrl.value;
  if (url === undefined) return openStorage({ path: config.databaseFile });
  const { openPostgresStorage } = await import('@toolbus/storage-postgres');
  return openPostgresStorage({ url, secretKeyFile: join(config.home, 'secret.key') });
}

/**
 * Opens the internal_search index beside the storage: PostgreSQL full-text search in the same database when a
 * storage URL is configured (every replica searches the same documents), else the SQLite index file.
 */
export async function openConfiguredDocumentIndex(config: CliConfig): Promise<DocumentSearchIndex> {
  const url = config.storageUrl.value;
  if (url === undefined) return openDocumentIndex({ path: config.indexFile });
  const { openPostgresDocumentIndex } = await import('@toolbus/storage-postgres');
  return openPostgresDocumentIndex({ url });
}

/**
 * Opens the skill stores beside the storage, for `toolbus serve` (the admin API and each turn's skills), `toolbus
 * skills` and `toolbus chat` alike: when a storage URL is configured, the registry and the bundles in the same
 * PostgreSQL database (every replica and every host sees one set of skills; the data folder is not used), else the
 * registry file and blob folder in the skills data folder (`dataDirectory`, default {@link skillsDataDirectory}).
 */
export async function openConfiguredSkillStores(
  config: CliConfig,
  env: Readonly<Record<string, string | undefined>>,
  dataDirectory = skillsDataDirectory(config, env),
  notice: (line: string) => void = () => {},
): Promise<SkillStores> {
  const url = config.storageUrl.value;
  if (url === undefined) return openSkillStores(dataDirectory);
  const { openPostgresSkillStores } = await import('@toolbus/storage-postgres');
  const stores = await openPostgresSkillStores({ url });
  try {
    await moveFolderSkills(dataDirectory, stores, notice);
  } catch (error) {
    await stores.close();
    throw error;
  }
  return stores;
}

/**
 * Skills added while storage was SQLite live in the data folder; once storage is PostgreSQL that folder is no longer
 * read, so they would drop out of every chat. The first opener that finds its registry file copies the skills the
 * database lacks (by name) and renames the file, so a skill removed later is not brought back; a skill whose bundle
 * cannot be read keeps the file in place, and the next opener tries again. Replicas doing this together copy each
 * skill once (the name is unique) and one of them renames.
 */
async function moveFolderSkills(
  dataDirectory: string,
  stores: SkillStores,
  notice: (line: string) => void,
): Promise<void> {
  const registryFile = join(dataDirectory, 'skills.sqlite');
  if (!existsSync(registryFile)) return;
  const folder = await openSkillStores(dataDirectory);
  const { copied, present, failed } = await copyMissingSkills(folder, stores).finally(() => folder.close());
  for (const { name, code } of failed) {
    notice(
      `toolbus: the skill "${name}" in ${dataDirectory} was not moved into PostgreSQL (${code}); it is tried again next time.\n`,
    );
  }
  if (failed.length > 0) return;
  const kept = `${registryFile}.moved-to-postgres-${new Date().toISOString().replaceAll(':', '-')}`;
  try {
    await rename(registryFile, kept);
  } catch (error) {
    // Another process renamed it first.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return;
  }
  notice(
    `toolbus: moved ${copied.length} skill(s) from ${dataDirectory} into PostgreSQL storage` +
      `${present.length > 0 ? ` (${present.length} already there)` : ''}; the old registry is kept as ${kept}.\n`,
  );
}

import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { omitUndefined } from '@toolbus/spec';
import { openSqlStorage } from './open-sql-storage.ts';
import { resolveSecretKey, type SecretKeyOptions } from './resolve-secret-key.ts';
import { createSecretBox } from './secret-box.ts';
import { sqliteMigrationTarget } from './sql/sqlite-migration-target.ts';
import { openDatabaseFile } from './sqlite/load-database-sync.ts';
import { createSqlitePacketStreams } from './sqlite/sqlite-packet-streams.ts';
import { startWalCheckpointer } from './sqlite/wal-checkpointer.ts';
import type { Storage } from './storage.ts';

/** Options of {@link openStorage}; the key file defaults to `<database directory>/secret.key` (none for `:memory:`). */
export interface OpenStorageOptions extends SecretKeyOptions {
  /** The database file, or `':memory:'`. Its directory is created when missing. */
  readonly path: string;
  /** A fully checkpointed write-ahead log larger than this is truncated (default 64 MiB; `Infinity`: never). */
  readonly walTruncateAboveBytes?: number;
}

/**
 * Opens (creating and migrating when needed) the embedded SQLite store. Fails closed: a schema newer than this
 * toolbus (`schema_too_new`) or a key other than the one the database was encrypted with (`secret_key_mismatch`)
 * is refused before anything is read or written.
 */
export async function openStorage(options: OpenStorageOptions): Promise<Storage> {
  const inMemory = options.path === ':memory:';
  if (!inMemory) mkdirSync(dirname(options.path), { recursive: true });
  const defaultKeyFile = inMemory ? {} : { secretKeyFile: join(dirname(options.path), 'secret.key') };
  const secrets = createSecretBox(resolveSecretKey({ ...defaultKeyFile, ...options }));
  const database = openDatabaseFile('The database', options.path, { enableForeignKeyConstraints: true });
  if (!inMemory) {
    database.exec('PRAGMA journal_mode = WAL');
    // NORMAL syncs at checkpoints, not every commit: a killed process loses nothing committed (a power loss may drop
    // the last transactions), and a turn's many small packet writes no longer wait on the disk each.
    database.exec('PRAGMA synchronous = NORMAL');
    // No wait inside SQLite: its wait would block the thread; the dialect waits for the lock asynchronously.
    database.exec('PRAGMA busy_timeout = 0');
  }
  const target = sqliteMigrationTarget(database);
  const storage = await openSqlStorage({
    ...target,
    secrets,
    packetStreams: () => createSqlitePacketStreams(database, target),
  });
  // Checkpoints run on a thread of their own (see startWalCheckpointer).
  const checkpointer = inMemory
    ? undefined
    : await startWalCheckpointer(
        database,
        options.path,
        omitUndefined({ truncateAboveBytes: options.walTruncateAboveBytes }),
      );
  return {
    ...storage,
    async close() {
      await checkpointer?.stop();
      await storage.close();
    },
  };
}

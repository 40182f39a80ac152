import { createRequire } from 'node:module';
import type { DatabaseSync, DatabaseSyncOptions } from 'node:sqlite';
import { ToolbusError } from '@toolbus/spec';
import { StorageError } from '../storage-error.ts';

/**
 * `node:sqlite`'s `DatabaseSync`, loaded on first use, not at import: only opening a database on a Node.js without it
 * (before 22.5) fails, with a `ToolbusError` (`node_sqlite_unavailable`) that says what is needed.
 */
export function loadDatabaseSync(): typeof DatabaseSync {
  try {
    return (createRequire(import.meta.url)('node:sqlite') as typeof import('node:sqlite')).DatabaseSync;
  } catch (error) {
    throw new ToolbusError({
      code: 'node_sqlite_unavailable',
      message: `toolbus needs Node.js 22.5 or newer for its embedded database (node:sqlite); this is ${process.version}.`,
      cause: error,
    });
  }
}

/**
 * Opens the SQLite file of `what` ("The database", "The search index") and reads its header: a file that is no
 * database fails here as `unreadable_database` naming the file, not later with SQLite's bare words.
 */
export function openDatabaseFile(what: string, path: string, options?: DatabaseSyncOptions): DatabaseSync {
  const DatabaseSyncClass = loadDatabaseSync();
  let database: DatabaseSync | undefined;
  try {
    database = new DatabaseSyncClass(path, options ?? {});
    database.prepare('PRAGMA schema_version').get();
    return database;
  } catch (cause) {
    database?.close();
    if ((cause as { code?: unknown }).code !== 'ERR_SQLITE_ERROR') throw cause;
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new StorageError({
      code: 'unreadable_database',
      message: `${what} ${path} cannot be opened as a SQLite database (${reason}). Restore it from a backup, or move it aside and toolbus starts a new one.`,
      cause,
    });
  }
}

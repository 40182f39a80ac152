import { createRequire } from 'node:module';
import type { DatabaseSync } from 'node:sqlite';
import { ToolbusError } from '@toolbus/spec';

/**
 * The `DatabaseSync` class of `node:sqlite`, loaded on first use rather than at import: importing a package that
 * opens databases (storage, the skill registry, the search index) then works on any Node.js, and only opening a
 * database on a Node.js without `node:sqlite` (before 22.5) fails, with a `ToolbusError`
 * (`node_sqlite_unavailable`) that says what is needed.
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

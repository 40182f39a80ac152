import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

/**
 * Temporary directories for the calling test file, all removed when its tests end: `directory()` makes one,
 * `databasePath()` names a `toolbus.db` in a new one.
 */
export function temporaryDirectories(prefix: string): { directory(): string; databasePath(): string } {
  const made: string[] = [];
  after(() => {
    for (const directory of made) rmSync(directory, { recursive: true, force: true });
  });
  const directory = () => {
    const created = mkdtempSync(join(tmpdir(), prefix));
    made.push(created);
    return created;
  };
  return { directory, databasePath: () => join(directory(), 'toolbus.db') };
}

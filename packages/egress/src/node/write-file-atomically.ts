import { closeSync, constants, fsyncSync, linkSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';

/** Options for {@link writeFileAtomically}. */
export interface WriteFileAtomicallyOptions {
  readonly mode: number;
  /** When true, an existing file wins: the write returns false instead of replacing it. */
  readonly exclusive?: boolean;
}

/**
 * Writes `path` so readers see the old file or the whole new one, never a part: the data goes to `<path>.tmp`
 * (a stale one is removed first, then created with O_EXCL and the final mode, so it is never briefly readable
 * by others), is synced, then renamed (or, exclusively, hard-linked, which fails if another writer got there
 * first). Returns false when `exclusive` and the file already existed.
 */
export function writeFileAtomically(
  path: string,
  data: string,
  options: WriteFileAtomicallyOptions,
): boolean {
  const temporary = `${path}.tmp`;
  rmSync(temporary, { force: true });
  const descriptor = openSync(
    temporary,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
    options.mode,
  );
  try {
    writeSync(descriptor, data);
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
  if (options.exclusive !== true) {
    renameSync(temporary, path);
    return true;
  }
  try {
    linkSync(temporary, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
}

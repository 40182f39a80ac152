import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/**
 * The nearest existing folder above `workRoot` that other users may not traverse (no `o+x`), or undefined when the
 * whole way is open. A root service runs each sandbox as a uid of its own, and bubblewrap opens the workspace as
 * that uid: a private folder above the work root (a root's home, a `mkdtemp` folder) would make every run fail.
 * (The work root itself is made 0711 by the service.)
 */
export async function privateFolderAbove(workRoot: string): Promise<string | undefined> {
  let current = resolve(workRoot);
  for (;;) {
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
    const info = await stat(current).catch(() => undefined);
    if (info?.isDirectory() === true && (info.mode & 0o001) === 0) return current;
  }
}

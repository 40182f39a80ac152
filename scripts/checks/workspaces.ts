// The repo's workspaces as the root package.json declares them, for the checks that hold house rules across
// packages (package roots, declared dependencies, own lint rules).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The repository root (two levels above this file). */
export const repoRoot = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');

/** A workspace's package.json, as far as the checks read it. */
export interface WorkspaceManifest {
  readonly name: string;
  readonly exports?: Readonly<Record<string, unknown>>;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly devDependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
}

/** One workspace: where it is and what its package.json says. */
export interface Workspace {
  /** The folder, relative to the repo root (`packages/core`). */
  readonly directory: string;
  readonly manifest: WorkspaceManifest;
}

/** Every workspace matched by the root package.json's `workspaces` globs (`packages/*`, ...). */
export function listWorkspaces(): Workspace[] {
  const root = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { workspaces: string[] };
  const workspaces: Workspace[] = [];
  for (const pattern of root.workspaces) {
    if (!pattern.endsWith('/*'))
      throw new Error(`workspaces: only "folder/*" globs are read, not ${pattern}`);
    const parent = join(repoRoot, pattern.slice(0, -2));
    if (!existsSync(parent)) continue;
    for (const entry of readdirSync(parent).sort()) {
      const manifestPath = join(parent, entry, 'package.json');
      if (!existsSync(manifestPath)) continue;
      workspaces.push({
        directory: relative(repoRoot, join(parent, entry)),
        manifest: JSON.parse(readFileSync(manifestPath, 'utf8')) as WorkspaceManifest,
      });
    }
  }
  return workspaces;
}

const skippedFolders = new Set(['node_modules', 'dist', 'build']);

/** Every `.ts`/`.mts`/`.mjs`/`.js` file below `directory` (relative to the repo root), skipping build output. */
export function listSourceFiles(directory: string): string[] {
  const files: string[] = [];
  const walk = (folder: string): void => {
    if (!existsSync(join(repoRoot, folder))) return;
    for (const entry of readdirSync(join(repoRoot, folder), { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (!skippedFolders.has(entry.name)) walk(path);
      } else if (/\.(ts|tsx|mts|mjs|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
        files.push(path);
      }
    }
  };
  walk(directory);
  return files.sort();
}

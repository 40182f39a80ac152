import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chown, copyFile, lstat, mkdir, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** A file to place in a workspace before a run. */
export interface StagedFile {
  /** Relative path inside the workspace, already validated. */
  readonly path: string;
  readonly sourcePath: string;
}

/** A regular file found in a workspace after a run. */
export interface WorkspaceFile {
  readonly path: string;
  readonly absolutePath: string;
  readonly size: number;
}

/** SHA-256 of a file, hex. */
export async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Copies stored files into a fresh workspace (copies, not links: the code may change them) and gives them to the
 * sandbox's uid. Returns each staged path's hash, so changed inputs can be told from unchanged ones afterwards.
 */
export async function stageWorkspaceFiles(options: {
  workspaceDirectory: string;
  files: readonly StagedFile[];
  ownerUid?: number;
}): Promise<Map<string, string>> {
  const hashes = new Map<string, string>();
  for (const file of options.files) {
    const target = join(options.workspaceDirectory, file.path);
    const parent = dirname(target);
    await mkdir(parent, { recursive: true, mode: 0o755 });
    await copyFile(file.sourcePath, target);
    hashes.set(file.path, await hashFile(target));
    if (options.ownerUid !== undefined) {
      for (
        let directory = parent;
        directory.startsWith(options.workspaceDirectory);
        directory = dirname(directory)
      ) {
        await chown(directory, options.ownerUid, options.ownerUid);
        if (directory === options.workspaceDirectory) break;
      }
      await chown(target, options.ownerUid, options.ownerUid);
    }
  }
  return hashes;
}

/**
 * Lists regular files under a workspace, never following symbolic links (a link the code made to /etc/passwd
 * must not turn into a download of the host's file). Stops after `maxFiles`.
 */
export async function listWorkspaceFiles(options: {
  workspaceDirectory: string;
  maxFiles: number;
}): Promise<WorkspaceFile[]> {
  const found: WorkspaceFile[] = [];
  const walk = async (relative: string, depth: number): Promise<void> => {
    if (depth > 32) return;
    const directory = relative ? join(options.workspaceDirectory, relative) : options.workspaceDirectory;
    const entries = await readdir(directory, { withFileTypes: true });
    entries.sort((left, right) => (left.name < right.name ? -1 : 1));
    for (const entry of entries) {
      if (found.length >= options.maxFiles) return;
      const path = relative ? `${relative}/${entry.name}` : entry.name;
      const absolutePath = join(directory, entry.name);
      const stats = await lstat(absolutePath);
      if (stats.isDirectory()) await walk(path, depth + 1);
      else if (stats.isFile()) found.push({ path, absolutePath, size: stats.size });
    }
  };
  await walk('', 0);
  return found;
}

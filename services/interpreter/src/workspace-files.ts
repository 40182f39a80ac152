import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chown, copyFile, lstat, mkdir, opendir } from 'node:fs/promises';
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

/** Bounds of one listing: entries of every kind (files, directories, links, others) and wall-clock time. */
export interface WorkspaceListingBounds {
  readonly maxFiles: number;
  readonly maxEntries: number;
  readonly maxDepth: number;
  /** performance.now() value after which the listing stops. */
  readonly deadline: number;
}

/** The files found, and why the listing stopped early or skipped entries (each said in words for the model). */
export interface WorkspaceListing {
  readonly files: WorkspaceFile[];
  readonly notes: string[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Lists regular files under a workspace, never following symbolic links (a link the code made to /etc/passwd
 * must not turn into a download of the host's file). The code controls the tree, so the walk is bounded in files,
 * in entries of every kind, in depth and in time, and a name that is not valid UTF-8 is skipped (and noted), never
 * turned into a path that does not exist.
 */
export async function listWorkspaceFiles(
  options: { workspaceDirectory: string } & WorkspaceListingBounds,
): Promise<WorkspaceListing> {
  const files: WorkspaceFile[] = [];
  const notes: string[] = [];
  let entries = 0;
  let undecodable = 0;
  let tooDeep = 0;
  let stopped: string | undefined;
  const stop = (): boolean => {
    if (stopped !== undefined) return true;
    if (files.length >= options.maxFiles) stopped = `only the first ${options.maxFiles} files are returned`;
    else if (entries >= options.maxEntries) {
      stopped = `the workspace has more than ${options.maxEntries} entries; files beyond them are not returned`;
    } else if (performance.now() > options.deadline) {
      stopped = 'listing the workspace took too long; files not reached by then are not returned';
    }
    return stopped !== undefined;
  };
  const walk = async (relative: string, depth: number): Promise<void> => {
    const directory = relative ? join(options.workspaceDirectory, relative) : options.workspaceDirectory;
    // Names as bytes: node's typings know only string encodings for opendir, though 'buffer' works as for readdir.
    const handle = await opendir(directory, { encoding: 'buffer' as BufferEncoding, bufferSize: 256 }).catch(
      () => undefined,
    );
    if (handle === undefined) return;
    const found: Array<{ name: string; directory: boolean; file: boolean }> = [];
    try {
      for await (const entry of handle) {
        entries += 1;
        if (stop()) break;
        let name: string;
        try {
          name = utf8.decode(entry.name as unknown as Uint8Array);
        } catch {
          undecodable += 1;
          continue;
        }
        found.push({ name, directory: entry.isDirectory(), file: entry.isFile() });
      }
    } finally {
      await handle.close().catch(() => {});
    }
    found.sort((left, right) => (left.name < right.name ? -1 : 1));
    for (const entry of found) {
      if (stop()) return;
      const path = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.directory) {
        if (depth >= options.maxDepth) tooDeep += 1;
        else await walk(path, depth + 1);
      } else if (entry.file) {
        const absolutePath = join(directory, entry.name);
        const stats = await lstat(absolutePath).catch(() => undefined);
        if (stats?.isFile()) files.push({ path, absolutePath, size: stats.size });
      }
    }
  };
  await walk('', 0);
  if (stopped !== undefined) notes.push(stopped);
  if (undecodable > 0) notes.push(`${undecodable} entries whose names are not valid UTF-8 were skipped`);
  if (tooDeep > 0) notes.push(`folders nested deeper than ${options.maxDepth} levels were not searched`);
  return { files, notes };
}

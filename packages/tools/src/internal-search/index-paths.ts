import { createHash } from 'node:crypto';
import { lstat, readdir, readFile } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { extractDocumentText, SUPPORTED_DOCUMENT_TYPES } from '../content/extract-document-text.ts';
import type { DocumentIndex } from './document-index.ts';

/** Progress of an indexing run, reported after each file. */
export interface IndexProgress {
  readonly done: number;
  readonly total: number;
  readonly path: string;
}

/** What an indexing run did. */
export interface IndexPathsResult {
  readonly added: number;
  readonly updated: number;
  readonly unchanged: number;
  /** Documents of the indexed folders whose files are gone. */
  readonly removed: number;
  readonly failed: readonly { readonly path: string; readonly reason: string }[];
  readonly files: number;
}

/** Options for {@link indexPaths}. */
export interface IndexPathsOptions {
  readonly index: DocumentIndex;
  /** Folders (walked recursively) and files. */
  readonly paths: readonly string[];
  readonly onProgress?: (progress: IndexProgress) => void;
  /** Files larger than this are skipped with a reason. Default 50 MiB. */
  readonly maxFileBytes?: number;
}

const skippedDirectories = new Set(['node_modules', '.git', '.hg', '.svn', 'dist', '__pycache__']);

/**
 * Indexes Markdown, text, HTML, PDF and JSON files under the given paths. Incremental: a file whose bytes did not
 * change since the last run is hashed but not extracted or indexed again, and documents of an indexed folder whose files were deleted are
 * removed. Hidden files and folders, symbolic links and dependency folders are skipped. One unreadable file is
 * reported and does not stop the run.
 */
export async function indexPaths(options: IndexPathsOptions): Promise<IndexPathsResult> {
  const maxFileBytes = options.maxFileBytes ?? 50 * 1024 * 1024;
  const files: string[] = [];
  const folders: string[] = [];
  const failed: { path: string; reason: string }[] = [];
  for (const path of options.paths) {
    const absolute = resolve(path);
    const stats = await lstat(absolute).catch(() => undefined);
    if (!stats) failed.push({ path: absolute, reason: 'not found' });
    else if (stats.isDirectory()) {
      folders.push(absolute);
      await walk(absolute, files);
    } else if (stats.isFile()) files.push(absolute);
    else failed.push({ path: absolute, reason: 'not a regular file or folder' });
  }
  let added = 0;
  let updated = 0;
  let unchanged = 0;
  let done = 0;
  const seen = new Set<string>();
  for (const file of files) {
    const sourceId = pathToFileURL(file).href;
    seen.add(sourceId);
    const mediaType = SUPPORTED_DOCUMENT_TYPES.get(extname(file).toLowerCase());
    try {
      const stats = await lstat(file);
      if (!mediaType) throw new Error('unsupported file type');
      if (stats.size > maxFileBytes) throw new Error(`larger than ${maxFileBytes} bytes`);
      const bytes = await readFile(file);
      const contentHash = createHash('sha256').update(bytes).digest('hex');
      const outcome = await indexOne({
        index: options.index,
        sourceId,
        file,
        bytes,
        contentHash,
        mediaType,
        mtime: stats.mtime,
      });
      if (outcome === 'added') added += 1;
      else if (outcome === 'updated') updated += 1;
      else unchanged += 1;
    } catch (error) {
      failed.push({ path: file, reason: error instanceof Error ? error.message : String(error) });
    }
    done += 1;
    options.onProgress?.({ done, total: files.length, path: file });
  }
  let removed = 0;
  for (const folder of folders) {
    for (const sourceId of options.index.sourcesUnder(pathToFileURL(folder + sep).href)) {
      if (!seen.has(sourceId) && options.index.remove(sourceId)) removed += 1;
    }
  }
  return { added, updated, unchanged, removed, failed, files: files.length };
}

async function indexOne(input: {
  index: DocumentIndex;
  sourceId: string;
  file: string;
  bytes: Uint8Array;
  contentHash: string;
  mediaType: string;
  mtime: Date;
}) {
  if (input.index.hashOf(input.sourceId) === input.contentHash) return 'unchanged' as const;
  const extracted = await extractDocumentText({
    bytes: input.bytes,
    mediaType: input.mediaType,
    name: input.file,
  });
  return input.index.upsert({
    sourceId: input.sourceId,
    title: extracted.title,
    link: input.sourceId,
    text: extracted.text,
    contentHash: input.contentHash,
    updatedAt: input.mtime.toISOString(),
  });
}

async function walk(folder: string, files: string[]): Promise<void> {
  const entries = await readdir(folder, { withFileTypes: true });
  entries.sort((left, right) => left.name.localeCompare(right.name));
  for (const entry of entries) {
    if (entry.name.startsWith('.') || skippedDirectories.has(entry.name)) continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) await walk(path, files);
    else if (entry.isFile() && SUPPORTED_DOCUMENT_TYPES.has(extname(entry.name).toLowerCase()))
      files.push(path);
  }
}

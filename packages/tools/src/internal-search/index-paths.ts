import { createHash } from 'node:crypto';
import { lstat, readdir, readFile } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { omitUndefined } from '@toolbus/spec';
import { extractDocumentText, SUPPORTED_DOCUMENT_TYPES } from '../content/extract-document-text.ts';
import type { DocumentSearchIndex } from './document-search-index.ts';
import type { IndexSkipReason } from './index-skip-reasons.ts';

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
  /** Files left out on purpose, with why (see {@link INDEX_SKIP_REASONS}) and what about this file. */
  readonly skipped: readonly {
    readonly path: string;
    readonly reason: IndexSkipReason;
    readonly detail: string;
  }[];
  /** Every file looked at: the indexed ones (`added + updated + unchanged`), the skipped and the failed ones. */
  readonly files: number;
  /** Files now in the index from this run: `added + updated + unchanged` (never a skipped or failed one). */
  readonly indexed: number;
  /**
   * Set when {@link IndexPathsOptions.signal} stopped the run before every file was looked at. Nothing was removed
   * then (a file the run did not reach is not a deleted one), and `files` still counts them all.
   */
  readonly stopped?: IndexStop;
}

/** How far a stopped run got: the files looked at before the stop, and what became of them. */
export interface IndexStop {
  /** Files looked at, of `files`: `indexed + skipped + failed`. */
  readonly done: number;
  /** Of those, the skipped ones (a file passed over by its type alone while the folders were walked is not one). */
  readonly skipped: number;
  /** Of those, the failed ones. */
  readonly failed: number;
}

/** Options for {@link indexPaths}. */
export interface IndexPathsOptions {
  readonly index: DocumentSearchIndex;
  /** Folders (walked recursively) and files. */
  readonly paths: readonly string[];
  readonly onProgress?: (progress: IndexProgress) => void;
  /** Files larger than this are skipped with a reason. Default 50 MiB. */
  readonly maxFileBytes?: number;
  /**
   * Stops the run: no file is started after it aborts, the one in flight finishes (each is its own transaction),
   * and the result says how far it got ({@link IndexPathsResult.stopped}).
   */
  readonly signal?: AbortSignal;
}

const skippedDirectories = new Set(['node_modules', '.git', '.hg', '.svn', 'dist', '__pycache__']);

/**
 * Indexes Markdown, text, HTML, PDF and JSON files under the given paths. Incremental: a file whose bytes did not
 * change since the last run is hashed but not extracted or indexed again, and documents of an indexed folder whose files were deleted are
 * removed. Hidden files and folders, symbolic links and dependency folders are skipped. One unreadable file is
 * reported and does not stop the run; `signal` does, between two files.
 */
export async function indexPaths(options: IndexPathsOptions): Promise<IndexPathsResult> {
  const maxFileBytes = options.maxFileBytes ?? 50 * 1024 * 1024;
  const files: string[] = [];
  const folders: string[] = [];
  const failed: { path: string; reason: string }[] = [];
  const skipped: { path: string; reason: IndexSkipReason; detail: string }[] = [];
  for (const path of options.paths) {
    const absolute = resolve(path);
    const stats = await lstat(absolute).catch(() => undefined);
    if (!stats) failed.push({ path: absolute, reason: 'not found' });
    else if (stats.isDirectory()) {
      folders.push(absolute);
      await walk(absolute, files, skipped);
    } else if (stats.isFile()) files.push(absolute);
    else failed.push({ path: absolute, reason: 'not a regular file or folder' });
  }
  let added = 0;
  let updated = 0;
  let unchanged = 0;
  let done = 0;
  let stopped: IndexStop | undefined;
  const seen = new Set<string>();
  const [skippedBefore, failedBefore] = [skipped.length, failed.length];
  for (const file of files) {
    if (options.signal?.aborted) {
      stopped = { done, skipped: skipped.length - skippedBefore, failed: failed.length - failedBefore };
      break;
    }
    const sourceId = pathToFileURL(file).href;
    seen.add(sourceId);
    const mediaType = SUPPORTED_DOCUMENT_TYPES.get(extname(file).toLowerCase());
    try {
      const stats = await lstat(file);
      if (!mediaType) {
        skipped.push({
          path: file,
          reason: 'unsupported',
          detail: `${extname(file) || 'no extension'} files are not indexed`,
        });
        continue;
      }
      if (stats.size > maxFileBytes) throw new Error(`larger than ${maxFileBytes} bytes`);
      const bytes = await readFile(file);
      // The name says text, but the bytes decide: an image renamed .txt must not become garbage in the index.
      if (mediaType !== 'application/pdf' && looksBinary(bytes)) {
        skipped.push({ path: file, reason: 'binary', detail: 'the content is binary, not text' });
        continue;
      }
      if (mediaType === 'application/pdf' && !startsWithPdfSignature(bytes)) {
        skipped.push({ path: file, reason: 'not-pdf', detail: 'not a PDF (no %PDF- signature)' });
        continue;
      }
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
      if (outcome === 'no-text') {
        skipped.push({
          path: file,
          reason: 'no-text',
          detail: 'no readable text after extraction (a scanned PDF?)',
        });
        continue;
      }
      if (outcome === 'added') added += 1;
      else if (outcome === 'updated') updated += 1;
      else unchanged += 1;
    } catch (error) {
      failed.push({ path: file, reason: error instanceof Error ? error.message : String(error) });
    } finally {
      done += 1;
      options.onProgress?.({ done, total: files.length, path: file });
    }
  }
  let removed = 0;
  // Only a run that saw every file knows which ones are gone.
  for (const folder of stopped ? [] : folders) {
    for (const sourceId of await options.index.sourcesUnder(pathToFileURL(folder + sep).href)) {
      if (!seen.has(sourceId) && (await options.index.remove(sourceId))) removed += 1;
    }
  }
  return {
    added,
    updated,
    unchanged,
    removed,
    failed,
    skipped,
    files: files.length,
    indexed: added + updated + unchanged,
    ...omitUndefined({ stopped }),
  };
}

async function indexOne(input: {
  index: DocumentSearchIndex;
  sourceId: string;
  file: string;
  bytes: Uint8Array;
  contentHash: string;
  mediaType: string;
  mtime: Date;
}) {
  if ((await input.index.hashOf(input.sourceId)) === input.contentHash) return 'unchanged' as const;
  const extracted = await extractDocumentText({
    bytes: input.bytes,
    mediaType: input.mediaType,
    name: input.file,
  });
  if (!extracted.text.trim()) return 'no-text' as const;
  return input.index.upsert({
    sourceId: input.sourceId,
    title: extracted.title,
    link: input.sourceId,
    text: extracted.text,
    contentHash: input.contentHash,
    updatedAt: input.mtime.toISOString(),
  });
}

async function walk(
  folder: string,
  files: string[],
  skipped: { path: string; reason: IndexSkipReason; detail: string }[],
): Promise<void> {
  const entries = await readdir(folder, { withFileTypes: true });
  entries.sort((left, right) => left.name.localeCompare(right.name));
  for (const entry of entries) {
    if (entry.name.startsWith('.') || skippedDirectories.has(entry.name)) continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) await walk(path, files, skipped);
    else if (!entry.isFile()) continue;
    else if (SUPPORTED_DOCUMENT_TYPES.has(extname(entry.name).toLowerCase())) files.push(path);
    else {
      const extension = extname(entry.name) || 'no extension';
      skipped.push({ path, reason: 'unsupported', detail: `${extension} files are not indexed` });
    }
  }
}

/**
 * Content sniffing: text has no NUL bytes and few control characters; binary formats (images, archives,
 * executables) have NULs or many controls within their first bytes. UTF-8 and UTF-16 text with a BOM pass.
 */
function looksBinary(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, 8192);
  if (sample[0] === 0xff && sample[1] === 0xfe) return false;
  if (sample[0] === 0xfe && sample[1] === 0xff) return false;
  let controls = 0;
  for (const byte of sample) {
    if (byte === 0) return true;
    if (byte < 9 || (byte > 13 && byte < 32)) controls += 1;
  }
  return sample.length > 0 && controls / sample.length > 0.1;
}

function startsWithPdfSignature(bytes: Uint8Array): boolean {
  // The signature may follow some junk; PDF readers look in the first KiB.
  return Buffer.from(bytes.subarray(0, 1024)).includes('%PDF-');
}

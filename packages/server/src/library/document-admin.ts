import { createHash } from 'node:crypto';
import { resolve, sep } from 'node:path';
import { omitUndefined } from '@toolbus/spec';
import {
  type DocumentScope,
  type DocumentSearchIndex,
  extractDocumentText,
  type IndexedDocumentInfo,
  type IndexPathsResult,
  type IndexProgress,
  indexPaths,
} from '@toolbus/tools';
import { notFoundError, ServerError } from '../http/server-error.ts';

/** What the document operations need. */
export interface DocumentAdminOptions {
  /** The index as the documents' organisation sees it (the index as opened: the default organisation's). */
  readonly index: DocumentSearchIndex;
  /** Folders under which {@link DocumentAdmin.indexUnderRoots} may index; none: it refuses every path. */
  readonly roots?: readonly string[];
}

/**
 * The document operations, one implementation for every front end: `toolbus index` (the local user's own paths)
 * and the server's admin routes (paths under the allowed roots, uploads) call these.
 */
export class DocumentAdmin {
  readonly #options: DocumentAdminOptions;

  constructor(options: DocumentAdminOptions) {
    this.#options = options;
  }

  /** The same operations on one organisation's documents only (what it indexes is recorded as `uploadedBy`'s). */
  forOrganization(scope: DocumentScope): DocumentAdmin {
    return new DocumentAdmin({ ...this.#options, index: this.#options.index.forOrganization(scope) });
  }

  /**
   * Indexes files and folders (incremental: unchanged files skipped, deleted ones removed), with progress per file;
   * `signal` stops it after the file in flight (the result's `stopped` says how far it got).
   */
  async indexPaths(
    paths: readonly string[],
    onProgress?: (progress: IndexProgress) => void,
    signal?: AbortSignal,
  ): Promise<IndexPathsResult> {
    return indexPaths({ index: this.#options.index, paths, ...omitUndefined({ onProgress, signal }) });
  }

  /** {@link DocumentAdmin.indexPaths} for one path, refused (`forbidden`, naming `body.path`) outside the roots. */
  async indexUnderRoots(
    path: string,
    onProgress?: (progress: IndexProgress) => void,
  ): Promise<IndexPathsResult> {
    return this.indexPaths([this.checkPath(path)], onProgress);
  }

  /** The absolute path, when it lies under an allowed root; else `forbidden` naming `body.path`. */
  checkPath(path: string): string {
    const absolute = resolve(path);
    const roots = (this.#options.roots ?? []).map((root) => resolve(root));
    if (!roots.some((root) => absolute === root || absolute.startsWith(root + sep))) {
      throw new ServerError({
        code: 'forbidden',
        field: 'body.path',
        message: `body.path: not under a folder this server may index (${roots.join(', ') || 'none configured'}).`,
      });
    }
    return absolute;
  }

  /** Extracts and indexes one uploaded document. */
  async indexUpload(input: {
    name: string;
    mediaType: string;
    bytes: Uint8Array;
  }): Promise<{ sourceId: string; outcome: string }> {
    let extracted: Awaited<ReturnType<typeof extractDocumentText>>;
    try {
      extracted = await extractDocumentText({
        bytes: input.bytes,
        mediaType: input.mediaType,
        name: input.name,
      });
    } catch (error) {
      throw new ServerError({
        code: 'invalid_request',
        field: 'body',
        message: `body: cannot read "${input.name}" as ${input.mediaType}: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
    const contentHash = createHash('sha256').update(input.bytes).digest('hex');
    const sourceId = `upload:${input.name}`;
    const outcome = await this.#options.index.upsert({
      sourceId,
      title: extracted.title || input.name,
      text: extracted.text,
      contentHash,
    });
    return { sourceId, outcome };
  }

  /** How many documents and chunks the index holds. */
  async counts(): Promise<{ documents: number; chunks: number }> {
    return await this.#options.index.counts();
  }

  /** The indexed documents, by source id (a page of at most `limit` after `after`). */
  async list(
    options: { limit?: number | undefined; after?: string | undefined } = {},
  ): Promise<readonly IndexedDocumentInfo[]> {
    return await this.#options.index.list(omitUndefined(options));
  }

  /** Removes one document; `not_found` naming `query.sourceId` when it is not indexed. */
  async remove(sourceId: string): Promise<void> {
    if (!(await this.#options.index.remove(sourceId))) {
      throw notFoundError('query.sourceId', `no indexed document ${JSON.stringify(sourceId)}.`);
    }
  }
}

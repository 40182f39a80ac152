import type { ExecutionFile } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import type { FileStore } from './file-store.ts';
import { HttpError } from './http-error.ts';
import type { ChangedFile } from './sandbox-executor.ts';
import { sanitizeFilename } from './sanitize-filename.ts';

/** The files stored from a run, and one note per file left out (in words for the model). */
export interface CollectedOutputFiles {
  readonly files: ExecutionFile[];
  readonly notes: string[];
}

/**
 * Copies a run's changed files into the store. Bytes are counted as they are copied, per file and in total (a
 * sparse file takes no room in the workspace but its full size here). A file over a cap, or refused by the full
 * store, is left out with a note; the run's other results still return.
 */
export async function collectOutputFiles(options: {
  changed: readonly ChangedFile[];
  files: FileStore;
  maxCollectedBytes: number;
  owner?: string;
}): Promise<CollectedOutputFiles> {
  const files: ExecutionFile[] = [];
  const notes: string[] = [];
  let collected = 0;
  for (const file of options.changed) {
    const remaining = options.maxCollectedBytes - collected;
    if (file.size > remaining) {
      notes.push(
        `output file ${JSON.stringify(file.path)} (${file.size} bytes) was not returned: a run returns at most ${options.maxCollectedBytes} bytes of files`,
      );
      continue;
    }
    try {
      const stored = await options.files.putCopy({
        filename: sanitizeFilename(file.path.split('/').at(-1) ?? null),
        sourcePath: file.absolutePath,
        maxBytes: remaining,
        ...omitUndefined({ owner: options.owner }),
      });
      collected += stored.size;
      files.push({ path: file.path, file_id: stored.fileId, size: stored.size, kind: file.kind });
    } catch (error) {
      const reason = error instanceof HttpError ? error.message : 'it could not be read';
      notes.push(`output file ${JSON.stringify(file.path)} was not returned: ${reason}`);
    }
  }
  return { files, notes };
}

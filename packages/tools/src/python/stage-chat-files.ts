import type { CodeInterpreter, WorkspaceFileInput } from '@toolbus/sandbox';
import type { ChatFile } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import type { InterpreterUploadCache } from './interpreter-upload-cache.ts';
import type { PythonToolFiles } from './python-tool-files.ts';
import { sanitizeStagedFilename, uniqueStagedFilename } from './staged-filename.ts';

/**
 * Limits of staging: how many chat files, how many bytes in all, and how many uploads at once go into the sandbox
 * for one execution, so a chat with many large files cannot stall or fill the interpreter.
 */
export interface StagingLimits {
  readonly maxFiles: number;
  readonly maxBytes: number;
  readonly concurrency: number;
}

/** Options for {@link stageChatFiles}. */
export interface StageChatFilesOptions {
  readonly code: string;
  /** The chat's files, oldest first. */
  readonly chatFiles: readonly ChatFile[];
  readonly files: PythonToolFiles;
  readonly client: CodeInterpreter;
  readonly cache: InterpreterUploadCache;
  readonly limits: StagingLimits;
  /** Workspace names no chat file may take (`managed` when skills are mounted over it): such files get `_1`. */
  readonly reservedNames?: readonly string[];
  readonly signal?: AbortSignal;
  /** The user the uploads are counted against in the service's file store. */
  readonly userId?: string | undefined;
}

/** The staged inputs, and a note for the model about files left out. */
export interface StagedChatFiles {
  readonly inputs: readonly WorkspaceFileInput[];
  readonly notice?: string;
}

/**
 * Puts the chat's files in the sandbox workspace under safe names. Files the code names come first, newest
 * first, then the rest, newest first; caps on count and bytes apply (at least one file is always staged). Each
 * file is uploaded once per (name, content hash) through the cache.
 */
export async function stageChatFiles(options: StageChatFilesOptions): Promise<StagedChatFiles> {
  // Deduplicate by name, the newest upload of a name winning.
  const byName = new Map<string, ChatFile>();
  for (const file of options.chatFiles) {
    byName.delete(file.name);
    byName.set(file.name, file);
  }
  const newestFirst = [...byName.values()].reverse();
  const named = (file: ChatFile): boolean =>
    options.code.includes(file.name) || options.code.includes(sanitizeStagedFilename(file.name));
  const ordered = [...newestFirst.filter(named), ...newestFirst.filter((file) => !named(file))];

  const selected: ChatFile[] = [];
  let bytes = 0;
  for (const file of ordered) {
    if (selected.length >= options.limits.maxFiles) break;
    const size = file.sizeBytes ?? 0;
    if (selected.length > 0 && bytes + size > options.limits.maxBytes) continue;
    selected.push(file);
    bytes += size;
  }
  const taken = new Set<string>(options.reservedNames);
  const paths = selected.map((file) => uniqueStagedFilename(sanitizeStagedFilename(file.name), taken));

  const inputs: Array<WorkspaceFileInput | undefined> = new Array(selected.length);
  const failures: string[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let index = next++; index < selected.length; index = next++) {
      const file = selected[index] as ChatFile;
      const path = paths[index] as string;
      try {
        const content = await options.files.readContent(file.id);
        if (!content) throw new Error('the file no longer exists');
        const sha256 = await sha256Hex(content);
        const fileId = await options.cache.getOrUpload({
          name: path,
          sha256,
          upload: async () =>
            (
              await options.client.uploadFile(
                omitUndefined({ filename: path, content, signal: options.signal, userId: options.userId }),
              )
            ).file_id,
        });
        inputs[index] = { path, file_id: fileId };
      } catch (error) {
        if (options.signal?.aborted) throw error;
        failures.push(`${file.name} (${error instanceof Error ? error.message : String(error)})`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.limits.concurrency, selected.length) }, worker));

  const notices: string[] = [];
  const dropped = ordered.length - selected.length;
  if (dropped > 0) {
    notices.push(
      `${dropped} of ${ordered.length} session files were not staged due to per-execution limits ` +
        `(${options.limits.maxFiles} files / ${options.limits.maxBytes} bytes); files referenced in the code were prioritized.`,
    );
  }
  if (failures.length > 0) notices.push(`Failed to stage ${failures.length} file(s): ${failures.join('; ')}`);
  const staged = inputs.filter((input): input is WorkspaceFileInput => input !== undefined);
  return notices.length > 0 ? { inputs: staged, notice: notices.join(' ') } : { inputs: staged };
}

// Web Crypto rather than node:crypto keeps the package root free of Node-only imports.
async function sha256Hex(content: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', content as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

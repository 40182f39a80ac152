// `toolbus chat --file`: files read, checked and stored as the local user's uploads before the chat starts.
import { readFile } from 'node:fs/promises';
import { basename, extname, resolve } from 'node:path';
import type { ChatFile } from '@toolbus/spec';
import { ToolbusError } from '@toolbus/spec';
import type { Storage } from '@toolbus/storage';
import { SUPPORTED_DOCUMENT_TYPES } from '@toolbus/tools';
import { unreadableFileReason } from './unreadable-file.ts';

/** Stores the files named by `--file` as the local user's uploads and returns them as the chat's files. */
export async function attachFiles(input: {
  paths: readonly string[];
  storage: Storage;
  userId: string;
  cwd: string;
}): Promise<ChatFile[]> {
  const files: ChatFile[] = [];
  for (const path of input.paths) {
    const absolute = resolve(input.cwd, path);
    const content = await readAttachment(absolute, path);
    const name = basename(absolute);
    const stored = await input.storage.files.put({
      userId: input.userId,
      name,
      mediaType: mediaTypeOf(name),
      content,
    });
    files.push({
      id: stored.id,
      name: stored.name,
      mediaType: stored.mediaType,
      sizeBytes: stored.sizeBytes,
    });
  }
  return files;
}

/** The bytes of a `--file`, or an error naming the flag and the path and saying what is wrong with it. */
export async function readAttachment(absolute: string, given: string): Promise<Buffer> {
  return readFile(absolute).catch((error: NodeJS.ErrnoException) => {
    const why = unreadableFileReason(error, ' (attach the files in it one by one)');
    throw new ToolbusError({ code: 'file_unreadable', message: `--file ${given}: ${why}` });
  });
}

function mediaTypeOf(name: string): string {
  return (
    SUPPORTED_DOCUMENT_TYPES.get(extname(name).toLowerCase()) ??
    (/\.csv$/i.test(name) ? 'text/csv' : 'application/octet-stream')
  );
}

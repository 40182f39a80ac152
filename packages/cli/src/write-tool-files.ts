import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { FileReference, Packet } from '@toolbus/spec';
import type { Storage } from '@toolbus/storage';

/** The folder files produced by tools go to, unless `--output` names another. */
export const DEFAULT_OUTPUT_DIRECTORY = 'toolbus-output';

/** The files tools produced in a turn (charts, images, CSVs), from its packets, each once. */
export function producedFiles(packets: readonly Packet[]): FileReference[] {
  const files = new Map<string, FileReference>();
  for (const { obj } of packets) {
    const found =
      obj.type === 'python-delta' || obj.type === 'custom-tool-delta'
        ? (obj.files ?? [])
        : obj.type === 'image-generation-final'
          ? obj.images
          : [];
    for (const file of found) files.set(file.fileId, file);
  }
  return [...files.values()];
}

/**
 * Writes stored files into `directory` (created when missing) under their own names, made safe (no folders, no
 * dot files) and unique (`chart-2.png`); returns the paths written.
 */
export async function writeStoredFiles(input: {
  readonly files: readonly Pick<FileReference, 'fileId' | 'name'>[];
  readonly storage: Storage;
  readonly directory: string;
}): Promise<string[]> {
  if (input.files.length === 0) return [];
  const directory = resolve(input.directory);
  await mkdir(directory, { recursive: true });
  const written: string[] = [];
  for (const file of input.files) {
    const content = await input.storage.files.readContent(file.fileId);
    if (content === undefined) continue;
    const safe =
      basename(file.name)
        .replace(/^\.+/, '')
        .replace(/[^\w.\- ]/g, '_') || file.fileId;
    const dot = safe.lastIndexOf('.');
    const [stem, extension] = dot > 0 ? [safe.slice(0, dot), safe.slice(dot)] : [safe, ''];
    for (let attempt = 1; ; attempt += 1) {
      const path = join(directory, attempt === 1 ? safe : `${stem}-${attempt}${extension}`);
      try {
        // `wx`: never overwrite a file already there (an earlier chart, the user's own file).
        await writeFile(path, content, { flag: 'wx' });
        written.push(path);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
  }
  return written;
}

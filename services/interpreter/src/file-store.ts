import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { copyFile, mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { HttpError } from './http-error.ts';

/** What the store knows about one file. */
export interface StoredFile {
  readonly fileId: string;
  readonly filename: string;
  readonly size: number;
  readonly createdAt: number;
}

/** Options for {@link FileStore}. */
export interface FileStoreOptions {
  readonly directory: string;
  readonly maxFileBytes: number;
  readonly ttlSeconds: number;
}

/**
 * Files by uuid on disk: uploads and the files executions produce. Metadata lives in memory (the store belongs to
 * one service process and its directory is emptied at start); files expire `ttlSeconds` after they were stored.
 */
export class FileStore {
  readonly #options: FileStoreOptions;
  readonly #files = new Map<string, StoredFile>();
  // Ids being written: on disk but not yet recorded, so the sweep must leave them alone.
  readonly #pending = new Set<string>();
  #sweepTimer: NodeJS.Timeout | undefined;

  constructor(options: FileStoreOptions) {
    this.#options = options;
  }

  /** Creates an empty store directory (mode 0700: sandboxes never see it) and starts the expiry sweep. */
  async open(): Promise<void> {
    await rm(this.#options.directory, { recursive: true, force: true });
    await mkdir(this.#options.directory, { recursive: true, mode: 0o700 });
    const interval = Math.min(60_000, this.#options.ttlSeconds * 1000);
    this.#sweepTimer = setInterval(() => void this.sweep(), interval);
    this.#sweepTimer.unref();
  }

  close(): void {
    clearInterval(this.#sweepTimer);
  }

  /** Stores a byte stream; rejects with 413 past the size limit without keeping a partial file. */
  async putStream(options: { filename: string; body: Readable }): Promise<StoredFile> {
    const fileId = randomUUID();
    const path = this.pathOf(fileId);
    this.#pending.add(fileId);
    let size = 0;
    const maxBytes = this.#options.maxFileBytes;
    const counted = async function* (source: Readable): AsyncGenerator<Buffer> {
      for await (const chunk of source) {
        size += (chunk as Buffer).length;
        if (size > maxBytes) {
          throw new HttpError({
            status: 413,
            code: 'file_too_large',
            message: `files are limited to ${maxBytes} bytes`,
          });
        }
        yield chunk as Buffer;
      }
    };
    try {
      await pipeline(options.body, counted, createWriteStream(path, { mode: 0o600 }));
    } catch (error) {
      this.#pending.delete(fileId);
      await rm(path, { force: true });
      throw error;
    }
    return this.#record({ fileId, filename: options.filename, size });
  }

  /** Stores a copy of a file on disk (an execution's output). */
  async putCopy(options: { filename: string; sourcePath: string }): Promise<StoredFile> {
    const fileId = randomUUID();
    this.#pending.add(fileId);
    try {
      await copyFile(options.sourcePath, this.pathOf(fileId));
    } catch (error) {
      this.#pending.delete(fileId);
      throw error;
    }
    const { size } = await stat(this.pathOf(fileId));
    return this.#record({ fileId, filename: options.filename, size });
  }

  get(fileId: string): StoredFile | undefined {
    return this.#files.get(fileId);
  }

  /** Where a stored file's bytes are (only for ids that `get` knows). */
  pathOf(fileId: string): string {
    return join(this.#options.directory, fileId);
  }

  async delete(fileId: string): Promise<boolean> {
    if (!this.#files.delete(fileId)) return false;
    await rm(this.pathOf(fileId), { force: true });
    return true;
  }

  /** Deletes expired files, and any file on disk the store does not know. */
  async sweep(now = Date.now()): Promise<void> {
    const cutoff = now - this.#options.ttlSeconds * 1000;
    for (const file of [...this.#files.values()]) {
      if (file.createdAt < cutoff) await this.delete(file.fileId);
    }
    for (const name of await readdir(this.#options.directory).catch(() => [])) {
      if (!this.#files.has(name) && !this.#pending.has(name))
        await rm(join(this.#options.directory, name), { force: true });
    }
  }

  #record(options: { fileId: string; filename: string; size: number }): StoredFile {
    const file: StoredFile = { ...options, createdAt: Date.now() };
    this.#files.set(file.fileId, file);
    this.#pending.delete(file.fileId);
    return file;
  }
}

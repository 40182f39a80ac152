import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { omitUndefined } from '@toolbus/spec';
import { HttpError } from './http-error.ts';

/** What the store knows about one file. */
export interface StoredFile {
  readonly fileId: string;
  readonly filename: string;
  readonly size: number;
  readonly createdAt: number;
  /** The user it counts against (the `x-toolbus-user` header of the request that stored it), if any. */
  readonly owner?: string;
}

/** Options for {@link FileStore}. */
export interface FileStoreOptions {
  readonly directory: string;
  readonly maxFileBytes: number;
  /** Bytes held in total; a file that would pass it is refused (507 `file_store_full`). */
  readonly maxTotalBytes: number;
  /** Bytes held for one owner. */
  readonly maxBytesPerOwner: number;
  readonly ttlSeconds: number;
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError({
    status: 413,
    code: 'file_too_large',
    message: `files are limited to ${maxBytes} bytes`,
  });
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
  // Bytes held, counting files still being written: in total and by owner.
  #totalBytes = 0;
  readonly #ownerBytes = new Map<string, number>();
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

  /** Stores a byte stream; rejects with 413 past the size limit (507 past the store's) without keeping a partial
   * file. */
  async putStream(options: { filename: string; body: Readable; owner?: string }): Promise<StoredFile> {
    return this.#write({ ...options, maxBytes: this.#options.maxFileBytes, source: options.body });
  }

  /** Stores a copy of a file on disk (an execution's output), counting the bytes as they are copied: a sparse file
   * counts at its full size, which is what it takes here. At most `maxBytes` (and the per-file limit). */
  async putCopy(options: {
    filename: string;
    sourcePath: string;
    owner?: string;
    maxBytes?: number;
  }): Promise<StoredFile> {
    const maxBytes = Math.min(this.#options.maxFileBytes, options.maxBytes ?? Number.POSITIVE_INFINITY);
    const { size } = await stat(options.sourcePath);
    // Refused before any byte is read when the size alone says so.
    if (size > maxBytes) throw tooLarge(maxBytes);
    this.refuseIfFull(options.owner, size);
    return this.#write({ ...options, maxBytes, source: createReadStream(options.sourcePath) });
  }

  async #write(options: {
    filename: string;
    source: Readable;
    owner?: string;
    maxBytes: number;
  }): Promise<StoredFile> {
    const fileId = randomUUID();
    const path = this.pathOf(fileId);
    this.#pending.add(fileId);
    let size = 0;
    const charge = (bytes: number): void => {
      this.refuseIfFull(options.owner, bytes);
      this.#adjust(options.owner, bytes);
      size += bytes;
    };
    const counted = async function* (source: Readable): AsyncGenerator<Buffer> {
      for await (const chunk of source) {
        const bytes = (chunk as Buffer).length;
        if (size + bytes > options.maxBytes) throw tooLarge(options.maxBytes);
        charge(bytes);
        yield chunk as Buffer;
      }
    };
    try {
      await pipeline(options.source, counted, createWriteStream(path, { mode: 0o600 }));
    } catch (error) {
      this.#pending.delete(fileId);
      this.#adjust(options.owner, -size);
      await rm(path, { force: true });
      throw error;
    }
    return this.#record({
      fileId,
      filename: options.filename,
      size,
      ...omitUndefined({ owner: options.owner }),
    });
  }

  /** Throws the store's 507 when `bytes` more for `owner` would pass the total or the owner's share. */
  refuseIfFull(owner: string | undefined, bytes: number): void {
    const { maxTotalBytes, maxBytesPerOwner } = this.#options;
    const ownerFull = owner !== undefined && (this.#ownerBytes.get(owner) ?? 0) + bytes > maxBytesPerOwner;
    if (!ownerFull && this.#totalBytes + bytes <= maxTotalBytes) return;
    throw new HttpError({
      status: 507,
      code: 'file_store_full',
      message: ownerFull
        ? `the file store holds at most ${maxBytesPerOwner} bytes per user and this user's files fill it: delete files that are no longer needed, or wait for them to expire`
        : `the file store holds at most ${maxTotalBytes} bytes and is full: delete files that are no longer needed, or retry later`,
    });
  }

  #adjust(owner: string | undefined, bytes: number): void {
    this.#totalBytes += bytes;
    if (owner === undefined) return;
    const next = (this.#ownerBytes.get(owner) ?? 0) + bytes;
    if (next <= 0) this.#ownerBytes.delete(owner);
    else this.#ownerBytes.set(owner, next);
  }

  get(fileId: string): StoredFile | undefined {
    return this.#files.get(fileId);
  }

  /** Where a stored file's bytes are (only for ids that `get` knows). */
  pathOf(fileId: string): string {
    return join(this.#options.directory, fileId);
  }

  async delete(fileId: string): Promise<boolean> {
    const file = this.#files.get(fileId);
    if (file === undefined || !this.#files.delete(fileId)) return false;
    this.#adjust(file.owner, -file.size);
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

  #record(options: { fileId: string; filename: string; size: number; owner?: string }): StoredFile {
    const file: StoredFile = { ...options, createdAt: Date.now() };
    this.#files.set(file.fileId, file);
    this.#pending.delete(file.fileId);
    return file;
  }
}

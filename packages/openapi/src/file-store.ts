import type { FileReference } from '@toolbus/spec';

/** A file an API answered with (an image, a CSV, a binary), to keep outside the model's context. */
export interface OpenApiFileInput {
  readonly name: string;
  readonly mediaType: string;
  readonly bytes: Uint8Array;
}

/** Where OpenAPI tools keep the files they receive; the rich response and the UI refer to them by id. */
export interface OpenApiFileStore {
  save(file: OpenApiFileInput): FileReference | Promise<FileReference>;
}

/** The default store: files in memory, retrievable by id (tests, short-lived processes). */
export interface MemoryFileStore extends OpenApiFileStore {
  get(fileId: string): OpenApiFileInput | undefined;
  readonly size: number;
}

/**
 * An in-memory {@link OpenApiFileStore}. Applications that keep chats pass their own store (the database's
 * file table); this default keeps every file until the process ends, so it suits tests and single runs.
 */
export function createMemoryFileStore(): MemoryFileStore {
  const files = new Map<string, OpenApiFileInput>();
  return {
    save(file) {
      const fileId = crypto.randomUUID();
      files.set(fileId, { name: file.name, mediaType: file.mediaType, bytes: file.bytes.slice() });
      return { fileId, name: file.name, mediaType: file.mediaType, sizeBytes: file.bytes.byteLength };
    },
    get(fileId) {
      return files.get(fileId);
    },
    get size() {
      return files.size;
    },
  };
}

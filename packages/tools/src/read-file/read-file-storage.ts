/** A stored file's metadata, as much of it as read_file needs. */
export interface ReadableFileInfo {
  readonly id: string;
  /** The owner: only they may read it. */
  readonly userId: string;
  readonly name: string;
  readonly mediaType: string;
  readonly sizeBytes: number;
}

/**
 * Where read_file finds uploaded files. `@toolbus/storage`'s `Storage` fits as it is (its `files` store has both
 * methods), so applications pass their storage; tests and other stores need only these two methods.
 */
export interface ReadFileStorage {
  readonly files: {
    get(id: string): Promise<ReadableFileInfo | undefined>;
    readContent(id: string): Promise<Uint8Array | undefined>;
  };
}

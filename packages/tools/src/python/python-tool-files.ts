/**
 * How the python tool reaches the application's file store: it reads the chat's files to stage them in the
 * sandbox, and saves the files the code produced. `@toolbus/storage`'s `files` store fits with a two-line adapter.
 */
export interface PythonToolFiles {
  /** The bytes of a chat file, or undefined when it no longer exists. */
  readContent(fileId: string): Promise<Uint8Array | undefined>;
  /** Stores a file the code generated; returns its id in the application's store. */
  saveGenerated(file: { name: string; mediaType: string; content: Uint8Array }): Promise<{ id: string }>;
}

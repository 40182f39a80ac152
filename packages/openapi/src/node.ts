// Node-only parts of @toolbus/openapi (file system access), kept out of the package root.
export type { DirectoryFileStore, DirectoryFileStoreOptions } from './node/directory-file-store.ts';
export { createDirectoryFileStore } from './node/directory-file-store.ts';

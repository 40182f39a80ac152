import type { Storage } from '../storage.ts';

/** One database of a backend under test, which can be closed and opened again. */
export interface DatabaseUnderTest {
  /** Opens the database (with its own key, or `secretKey` to prove another key is refused). */
  open(options?: { readonly secretKey?: string }): Promise<Storage>;
  /** Everything the backend wrote, as text: what a copy of the database (its files, a dump) shows to a reader. */
  rawText(): Promise<string>;
}

/** What the storage conformance suite needs of a backend. */
export interface StorageBackendUnderTest {
  /** Names the backend in the suite's titles. */
  readonly name: string;
  /** Opens a fresh, empty storage (its own database, with its own key). */
  openStorage(): Promise<Storage>;
  /** A fresh, empty database that outlives a `close()`. */
  createDatabase(): Promise<DatabaseUnderTest>;
}

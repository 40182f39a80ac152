/**
 * Where skill bundles are kept: a flat key → bytes store, small enough to implement on a filesystem or on object
 * storage (S3, GCS). Keys are `/`-separated lowercase paths made by toolbus, never by users.
 */
export interface BlobStore {
  /** Stores `data` under `key`, atomically: readers see the whole blob or none. Resolves to its size. */
  put(key: string, data: AsyncIterable<Uint8Array> | Uint8Array): Promise<{ readonly size: number }>;
  /** Streams the blob; rejects with a `SkillBundleError` of code `blob_not_found` when there is none. */
  get(key: string): Promise<AsyncIterable<Uint8Array>>;
  /** Removes the blob; resolves also when there was none. */
  delete(key: string): Promise<void>;
  has(key: string): Promise<boolean>;
}

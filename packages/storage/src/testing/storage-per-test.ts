import { afterEach, beforeEach } from 'node:test';
import type { Storage } from '../storage.ts';
import type { StorageBackendUnderTest } from './storage-backend-under-test.ts';

/** A fresh storage for each test of the calling `describe`, closed after it: the getter returns the current one. */
export function storagePerTest(backend: StorageBackendUnderTest): () => Storage {
  let storage: Storage | undefined;
  beforeEach(async () => {
    storage = await backend.openStorage();
  });
  afterEach(async () => {
    await storage?.close();
  });
  return () => {
    if (storage === undefined) throw new Error('No storage outside a test.');
    return storage;
  };
}

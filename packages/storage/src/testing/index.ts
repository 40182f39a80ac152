// `@toolbus/storage/testing`: the storage conformance suite every backend runs (node:test), and its backend hook.
export { describeStorageConformance } from './describe-storage-conformance.ts';
export { isStorageErrorCode } from './is-storage-error-code.ts';
export type { DatabaseUnderTest, StorageBackendUnderTest } from './storage-backend-under-test.ts';

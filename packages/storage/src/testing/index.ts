// `@toolbus/storage/testing`: the conformance suites every storage backend runs (node:test), and their backend hook.
export { describeStorageConformance } from './describe-storage-conformance.ts';
export { hostileTexts } from './hostile-texts.ts';
export { isStorageErrorCode } from './is-storage-error-code.ts';
export { describeOrganizationStoreConformance } from './organization-store-conformance.ts';
export { readBackEverything } from './read-back-everything.ts';
export type { DatabaseUnderTest, StorageBackendUnderTest } from './storage-backend-under-test.ts';

import { describe } from 'node:test';
import { describeAccessStoreConformance } from './describe-access-store-conformance.ts';
import { describeChatStoreConformance } from './describe-chat-store-conformance.ts';
import { describeConnectedAppStoreConformance } from './describe-connected-app-store-conformance.ts';
import { describeMcpServerStoreConformance } from './describe-mcp-server-store-conformance.ts';
import { describeResearchCheckpointStoreConformance } from './describe-research-checkpoint-store-conformance.ts';
import { describeStoreConformance } from './describe-store-conformance.ts';
import { describeUserSecretStoreConformance } from './describe-user-secret-store-conformance.ts';
import type { StorageBackendUnderTest } from './storage-backend-under-test.ts';

/**
 * The storage test suite, the same for every backend: each `Storage` implementation calls this from its own test
 * file with a factory of fresh databases, so SQLite and PostgreSQL are held to the very same assertions.
 */
export function describeStorageConformance(backend: StorageBackendUnderTest): void {
  describe(`${backend.name} storage`, () => {
    describeStoreConformance(backend);
    describeMcpServerStoreConformance(backend);
    describeChatStoreConformance(backend);
    describeAccessStoreConformance(backend);
    describeConnectedAppStoreConformance(backend);
    describeResearchCheckpointStoreConformance(backend);
    describeUserSecretStoreConformance(backend);
  });
}

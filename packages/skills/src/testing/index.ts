// `@toolbus/skills/testing`: the conformance suites every skill registry and blob store backend runs (node:test).
export type { BlobStoreUnderTest } from './describe-blob-store-conformance.ts';
export { describeBlobStoreConformance } from './describe-blob-store-conformance.ts';
export type { SkillRegistryUnderTest } from './describe-skill-registry-conformance.ts';
export { describeSkillRegistryConformance, skillRecord } from './describe-skill-registry-conformance.ts';

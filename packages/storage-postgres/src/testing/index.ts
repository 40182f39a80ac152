// `@toolbus/storage-postgres/testing`: a throwaway PostgreSQL cluster for tests and benchmarks, and a proxy that
// loses a COMMIT's reply.
export type { CommitReplyLossProxy } from './commit-reply-loss-proxy.ts';
export { startCommitReplyLossProxy } from './commit-reply-loss-proxy.ts';
export type { StartTestPostgresOptions, TestPostgres } from './start-test-postgres.ts';
export { startTestPostgres } from './start-test-postgres.ts';

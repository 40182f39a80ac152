// `@toolbus/storage-postgres/testing`: a throwaway PostgreSQL cluster for tests and benchmarks.
export type { StartTestPostgresOptions, TestPostgres } from './start-test-postgres.ts';
export { startTestPostgres } from './start-test-postgres.ts';

export * from './create-test-repository.ts';

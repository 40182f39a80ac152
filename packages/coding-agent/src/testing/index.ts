export {
  createTestRepository,
  TEST_REPOSITORY_COMMITS,
  TEST_REPOSITORY_FILES,
} from './create-test-repository.ts';

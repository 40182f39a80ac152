// Runs every test file with node's test runner, against the TypeScript sources (the `development` export
// condition), so tests never depend on a stale build. Extra arguments are passed through as file filters.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const roots = ['packages', 'services', 'apps', 'e2e', 'scripts'];
const skipped = new Set(['node_modules', 'dist', '__fixtures__']);

function collect(directory, files) {
  let entries;
  try {
    entries = readdirSync(directory);
  } catch {
    return;
  }
  for (const entry of entries) {
    if (skipped.has(entry)) continue;
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) collect(path, files);
    else if (entry.endsWith('.test.ts')) files.push(relative(root, path));
  }
}

const files = [];
for (const top of roots) collect(join(root, top), files);
const filters = process.argv.slice(2);
const selected = filters.length
  ? files.filter((file) => filters.some((filter) => file.includes(filter)))
  : files;
if (selected.length === 0) {
  console.error('run-tests: no test files matched');
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? '4';
const result = spawnSync(
  process.execPath,
  ['--conditions=development', '--test', `--test-concurrency=${concurrency}`, ...selected.sort()],
  { cwd: root, stdio: 'inherit', env: { ...process.env, TOOLBUS_TEST: '1' } },
);
process.exit(result.status ?? 1);

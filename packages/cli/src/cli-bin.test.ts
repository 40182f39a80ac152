import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

// The installed `toolbus` command (bin/toolbus.mjs) runs the built package. A checkout that was installed but not
// built has no dist/: `npx toolbus` then says what to run, not a module-resolution stack trace.

test('the toolbus bin without a build says to build, in one line, exit 1', async () => {
  const root = await mkdtemp(join(tmpdir(), 'toolbus-bin-'));
  try {
    await mkdir(join(root, 'bin'));
    await copyFile(new URL('../bin/toolbus.mjs', import.meta.url), join(root, 'bin', 'toolbus.mjs'));
    const run = spawnSync(process.execPath, [join(root, 'bin', 'toolbus.mjs'), '--version'], {
      encoding: 'utf8',
    });
    assert.equal(run.status, 1);
    assert.equal(
      run.stderr,
      'toolbus is not built yet: run `npm run setup` (or `npm run build`) in the toolbus repository, then try again.\n',
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

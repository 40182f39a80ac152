import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

describe('interpreter: running as the pid 1 of a container', () => {
  it('leaves no zombie bubblewrap processes, after normal runs and after runs killed at their timeout', async () => {
    // A fresh pid namespace makes the service its init, as in a container without one: every orphan lands on it.
    const fixture = fileURLToPath(new URL('./__fixtures__/service-as-pid-one.ts', import.meta.url));
    const { stdout } = await execFileAsync(
      '/usr/bin/unshare',
      ['--pid', '--fork', '--mount-proc', process.execPath, '--conditions=development', fixture],
      { env: { ...process.env, RUNS: '3' }, timeout: 120_000 },
    );
    const report = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { pid: number; zombies: string[] };
    assert.equal(report.pid, 1);
    assert.deepEqual(report.zombies, []);
  });
});

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { outputOf } from './__fixtures__/spawn-cli.ts';

const shutdownModule = new URL('./shutdown-signal.ts', import.meta.url).href;

test('a second signal queued behind the first is not lost: it exits at once, with its own code', async () => {
  // Both signals are sent to itself before the event loop runs, so Node reads them in one go: the first may not
  // stop Node watching the signals before the second is handled. A lost second signal would leave the process
  // running; the timer ends it then (exit 0) instead of hanging the test.
  const script = `
    import { shutdownSignal } from ${JSON.stringify(shutdownModule)};
    shutdownSignal({ stdout: process.stdout, stderr: process.stderr, env: {}, cwd: '/' }, 'toolbus test');
    setTimeout(() => process.stdout.write('second signal lost\\n'), 10_000);
    process.kill(process.pid, 'SIGINT');
    process.kill(process.pid, 'SIGTERM');
  `;
  const args = ['--conditions=development', '--input-type=module', '--eval', script];
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end();
  const run = await outputOf(child);
  assert.equal(run.code, 143, run.stdout + run.stderr);
  assert.equal(run.stderr, 'toolbus test: SIGTERM again, exiting without waiting for running work\n');
});

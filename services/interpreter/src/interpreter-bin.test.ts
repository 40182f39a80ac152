import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('./bin.ts', import.meta.url));

function startBin(args: readonly string[]) {
  const child = spawn(process.execPath, ['--conditions=development', bin, '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const url = new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(Object.assign(new Error(stderr), { code })));
  });
  url.catch(() => {});
  return { child, url, stderr: () => stderr };
}

describe('toolbus-interpreter command line', () => {
  it('--max-concurrent and --max-queued set the service’s slots: a run beyond them is refused with 503 queue_full', async () => {
    const service = startBin(['--max-concurrent', '1', '--max-queued', '1']);
    try {
      const url = await service.url;
      const run = (code: string) =>
        fetch(`${url}/v1/execute`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ code }),
        });
      const first = run('import time\ntime.sleep(1)\nprint(1)');
      const queued = run('print(2)');
      for (;;) {
        const health = (await (await fetch(`${url}/health`)).json()) as {
          load: { running: number; queued: number };
        };
        if (health.load.running === 1 && health.load.queued === 1) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const refused = await run('print(3)');
      assert.equal(refused.status, 503);
      assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'queue_full');
      assert.equal((await first).status, 200);
      assert.equal((await queued).status, 200);
    } finally {
      if (service.child.exitCode === null) {
        service.child.kill('SIGTERM');
        await once(service.child, 'exit');
      }
    }
  });

  it('refuses a count that is not a whole number with status 2, naming the flag', async () => {
    const service = startBin(['--max-concurrent', '0']);
    await assert.rejects(service.url, (error: Error & { code?: number }) => {
      assert.equal(error.code, 2);
      assert.match(error.message, /--max-concurrent takes a whole number from 1, not 0/);
      return true;
    });
  });
});

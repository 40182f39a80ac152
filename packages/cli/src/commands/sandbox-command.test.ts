import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  killStartedClis,
  type RunningCli,
  sendSignalsTogether,
  startCli,
} from '../__fixtures__/spawn-cli.ts';

// `toolbus sandbox serve` stops as `toolbus serve` does: the first SIGINT or SIGTERM closes the service (running
// code ended, workspaces removed, the work root released) and it exits 0; a second one exits at once.

describe('toolbus sandbox serve stopped by a signal', () => {
  let home = '';
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'toolbus-sandbox-signals-'));
    // Traversable, as a home is: the sandbox users (a service run as root) reach the workspaces through it.
    await chmod(home, 0o711);
  });
  after(async () => {
    killStartedClis();
    await rm(home, { recursive: true, force: true });
  });

  /** A service on a work root of its own, once it has said where it listens. */
  async function startSandbox(name: string): Promise<{ cli: RunningCli; workRoot: string }> {
    const workRoot = join(home, name);
    const cli = startCli(['sandbox', 'serve', '--port', '0', '--work-root', workRoot], {
      TOOLBUS_HOME: join(home, '.toolbus'),
    });
    await cli.waitForOutput('Use it:');
    assert.equal(existsSync(join(workRoot, 'instance.json')), true, 'the service claimed its work root');
    return { cli, workRoot };
  }

  test('SIGTERM closes it: it says so, releases its work root and exits 0', async () => {
    const { cli, workRoot } = await startSandbox('once');
    cli.child.kill('SIGTERM');
    assert.equal(await cli.exited, 0, cli.output().stderr);
    assert.match(
      cli.output().stdout,
      /^toolbus sandbox serve: SIGTERM received, ending running code and removing workspaces$/m,
    );
    assert.equal(existsSync(join(workRoot, 'instance.json')), false, 'closed: the work root is released');
  });

  test('a second signal while it closes exits at once, with 130 or 143 after that signal', async () => {
    const { cli, workRoot } = await startSandbox('twice');
    // Both are taken before the close (files, cgroups) can be over: only not waiting for it ends the service.
    await sendSignalsTogether(cli, ['SIGINT', 'SIGTERM']);
    const code = await cli.exited;
    const { stderr } = cli.output();
    const again =
      /^toolbus sandbox serve: (SIGINT|SIGTERM) again, exiting without waiting for running work$/m.exec(
        stderr,
      )?.[1];
    assert.ok(again, stderr);
    assert.equal(code, again === 'SIGINT' ? 130 : 143, stderr);
    // It did not wait for the close: the claim on the work root is left (with the cgroups it made, if any).
    const record = join(workRoot, 'instance.json');
    assert.equal(existsSync(record), true);
    const { cgroups } = JSON.parse(await readFile(record, 'utf8')) as { cgroups: string[] };

    // The next service on that work root clears what it left, and stops cleanly.
    const next = await startSandbox('twice');
    next.cli.child.kill('SIGTERM');
    assert.equal(await next.cli.exited, 0, next.cli.output().stderr);
    for (const group of cgroups) assert.equal(existsSync(group), false, `${group} was removed`);
  });
});

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type RunningCli, startCli } from './__fixtures__/spawn-cli.ts';

// `toolbus sandbox serve` killed with SIGKILL while runs and a session hold workspaces: its tmpfs mounts, folders
// and cgroups stay behind. Started again on the same (default) work root, it removes them before serving.

const json = { 'content-type': 'application/json' };

async function startSandbox(home: string): Promise<{ cli: RunningCli; url: string }> {
  const cli = startCli(['sandbox', 'serve', '--port', '0'], { TOOLBUS_HOME: home });
  await cli.waitForOutput('Use it:');
  const url = /sandbox listening on (http:\/\/\S+)/.exec(cli.output().stdout)?.[1];
  assert.ok(url, cli.output().stdout);
  return { cli, url };
}

async function mountsUnder(root: string): Promise<string[]> {
  const mounts = await readFile('/proc/self/mounts', 'utf8');
  return mounts
    .split('\n')
    .map((line) => line.split(' ')[1] ?? '')
    .filter((path) => path.startsWith(`${root}/`));
}

async function recordedCgroups(workRoot: string): Promise<string[]> {
  const record = JSON.parse(await readFile(join(workRoot, 'instance.json'), 'utf8')) as { cgroups: string[] };
  return record.cgroups;
}

async function waitUntil(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 25));
}

describe('toolbus sandbox serve: a restart after kill -9 cleans up what the killed service left', () => {
  let home = '';
  let workRoot = '';
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'toolbus-sandbox-restart-'));
    // Traversable, as a home is: the sandbox users reach the workspaces through it.
    await chmod(home, 0o711);
    workRoot = join(home, '.toolbus', 'sandbox');
  });
  const running: RunningCli[] = [];
  after(async () => {
    for (const cli of running) cli.child.kill('SIGKILL');
    await Promise.all(running.map((cli) => cli.exited));
    await rm(home, { recursive: true, force: true });
  });

  it('removes the mounted workspaces, their folders and the cgroups of the killed instance, refuses a second live service on the root, and serves again', {
    timeout: 180_000,
  }, async () => {
    const first = await startSandbox(join(home, '.toolbus'));
    running.push(first.cli);
    assert.equal(
      existsSync(join(workRoot, 'instance.json')),
      true,
      'the default work root is under the home',
    );
    // A session and two runs in flight, each with its own workspace (a tmpfs mount when the service is root).
    const session = await fetch(`${first.url}/v1/sessions`, { method: 'POST', headers: json, body: '{}' });
    assert.equal(session.ok, true, await session.clone().text());
    const runs = [1, 2].map(() =>
      fetch(`${first.url}/v1/execute`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ code: 'import time\ntime.sleep(30)', timeout_ms: 40_000 }),
      }).catch(() => undefined),
    );
    await waitUntil(async () => {
      const health = (await (await fetch(`${first.url}/health`)).json()) as { load: { running: number } };
      // Running, and each workspace mounted (the mount comes a moment after the run is counted).
      return health.load.running === 2 && (await mountsUnder(workRoot)).length >= 3;
    });
    const killedMounts = await mountsUnder(workRoot);
    const killedFolders = await readdir(join(workRoot, 'runs'));
    const killedCgroups = await recordedCgroups(workRoot);
    // What the test is about: this machine gives workspaces mounts and the service cgroups (root, cgroupfs).
    assert.equal(killedFolders.length, 3, 'a folder per run and session');
    assert.equal(killedMounts.length, 3, 'a tmpfs per workspace');
    assert.ok(killedCgroups.length > 0, 'the service made cgroups');
    for (const group of killedCgroups)
      assert.ok((await readdir(group)).some((name) => name.startsWith('run-')));

    first.cli.child.kill('SIGKILL');
    await first.cli.exited;
    await Promise.all(runs);
    assert.deepEqual(await mountsUnder(workRoot), killedMounts, 'SIGKILL leaves the mounts');
    for (const group of killedCgroups) assert.equal(existsSync(group), true, 'and the cgroups');

    const second = await startSandbox(join(home, '.toolbus'));
    running.push(second.cli);
    assert.deepEqual(await mountsUnder(workRoot), []);
    assert.deepEqual(await readdir(join(workRoot, 'runs')), []);
    for (const group of killedCgroups) assert.equal(existsSync(group), false, `${group} was removed`);
    const ownCgroups = await recordedCgroups(workRoot);
    assert.equal(ownCgroups.length, killedCgroups.length);
    assert.equal(
      ownCgroups.some((group) => killedCgroups.includes(group)),
      false,
    );
    assert.match(second.cli.output().stderr, /removed \d cgroup\(s\) a stopped instance left behind/);

    // A second live service on the same work root would delete the first one's workspaces: refused, named.
    const third = startCli(['sandbox', 'serve', '--port', '0'], { TOOLBUS_HOME: join(home, '.toolbus') });
    running.push(third);
    assert.notEqual(await third.exited, 0);
    assert.match(
      third.output().stderr,
      new RegExp(`in use by process ${second.cli.child.pid} \\(another interpreter service\\)`),
    );

    const run = await fetch(`${second.url}/v1/execute`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ code: 'print(6 * 7)' }),
    });
    assert.equal(((await run.json()) as { stdout: string }).stdout, '42\n');

    // A clean stop removes its own cgroups and its record.
    second.cli.child.kill('SIGTERM');
    assert.equal(await second.cli.exited, 0);
    for (const group of ownCgroups) assert.equal(existsSync(group), false);
    assert.equal(existsSync(join(workRoot, 'instance.json')), false);
  });
});

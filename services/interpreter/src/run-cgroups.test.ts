import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execute, getJson } from './__fixtures__/interpreter-http.ts';
import { startInterpreterServer } from './interpreter-server.ts';
import { RunCgroups } from './run-cgroups.ts';

// These tests lay out a cgroup v2 hierarchy in a temporary directory (this machine may have only v1, or no
// memory controller in v2), so they prove which files the service writes, with which values, and when it removes
// its groups — not that the kernel enforces them. The kernel's side is in interpreter-hardening.test.ts, on
// whichever hierarchy the machine has.

const mib = 1024 * 1024;
const ownGroup = 'system.slice/toolbus.service';

/** A host root whose /proc/self says: cgroup v2 at /sys/fs/cgroup, the service in `ownGroup`, memory and pids offered. */
async function cgroupV2Layout(): Promise<{ root: string; parent: string }> {
  const root = await mkdtemp(join(tmpdir(), 'toolbus-cgroup-v2-'));
  await mkdir(join(root, 'proc/self'), { recursive: true });
  await writeFile(join(root, 'proc/self/mounts'), 'cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev 0 0\n');
  await writeFile(join(root, 'proc/self/cgroup'), `0::/${ownGroup}\n`);
  const parent = join(root, 'sys/fs/cgroup', ownGroup);
  await mkdir(parent, { recursive: true });
  await writeFile(join(parent, 'cgroup.controllers'), 'cpuset cpu io memory pids\n');
  await writeFile(join(parent, 'cgroup.subtree_control'), '');
  return { root, parent };
}

async function serviceGroupOf(parent: string): Promise<string> {
  const names = (await readdir(parent)).filter((name) => name.startsWith('toolbus-interpreter-'));
  assert.equal(names.length, 1, names.join(', '));
  return join(parent, names[0] as string);
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * Stands in for the kernel, whose control files are not directory entries: a real `rmdir` of a cgroup takes them
 * with it. Removing them here lets the service's `rmdir` succeed on a plain directory.
 */
async function dropControlFiles(directory: string): Promise<void> {
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) await dropControlFiles(path);
    else await unlink(path);
  }
}

describe('cgroup v2 per-run groups, on a v2 layout in a temporary directory (what is written and when, not kernel enforcement)', () => {
  it('delegates memory and pids, writes memory.max and pids.max per group, reuses empty groups, removes busy ones and everything on close', async () => {
    const { root, parent } = await cgroupV2Layout();
    try {
      const cgroups = await RunCgroups.open({ enabled: true, hostRoot: root });
      assert.deepEqual(cgroups.state, {
        state: 'active',
        version: 'v2',
        controls: { memory: 'memory.max', swap: null, processes: 'pids.max' },
      });
      assert.equal(cgroups.limitsProcesses, true);
      // The service's own group lets its children use both controllers, and so does the group above it.
      assert.equal(await readFile(join(parent, 'cgroup.subtree_control'), 'utf8'), '+memory +pids');
      const service = await serviceGroupOf(parent);
      assert.equal(await readFile(join(service, 'cgroup.subtree_control'), 'utf8'), '+memory +pids');

      const first = await cgroups.acquire({ memoryBytes: 200 * mib, maxProcesses: 64 });
      assert.ok(first);
      const directory = first.directories[0] as string;
      assert.ok(directory.startsWith(`${service}/run-`), directory);
      assert.deepEqual(first.procsFiles, [join(directory, 'cgroup.procs')]);
      assert.equal(await readFile(join(directory, 'memory.max'), 'utf8'), String(200 * mib));
      assert.equal(await readFile(join(directory, 'pids.max'), 'utf8'), '64');
      // No swap accounting in this layout (no memory.swap.max in the service's group): nothing written for it.
      assert.equal(await exists(join(directory, 'memory.swap.max')), false);

      // An empty group (the kernel shows no pids) is kept and handed to the next run with the same limits.
      await writeFile(join(directory, 'cgroup.procs'), '');
      await cgroups.release(first);
      assert.equal(await exists(directory), true);
      assert.equal(await cgroups.acquire({ memoryBytes: 200 * mib, maxProcesses: 64 }), first);
      // Other limits: a group of their own.
      const other = await cgroups.acquire({ memoryBytes: 300 * mib, maxProcesses: 8 });
      assert.ok(other);
      assert.notEqual(other.directories[0], directory);
      assert.equal(
        await readFile(join(other.directories[0] as string, 'memory.max'), 'utf8'),
        String(300 * mib),
      );
      assert.equal(await readFile(join(other.directories[0] as string, 'pids.max'), 'utf8'), '8');

      // A group that may still hold processes is never reused: the next run gets a fresh one.
      await writeFile(join(directory, 'cgroup.procs'), '4242\n');
      await cgroups.release(first);
      const fresh = await cgroups.acquire({ memoryBytes: 200 * mib, maxProcesses: 64 });
      assert.ok(fresh);
      assert.notEqual(fresh.directories[0], directory);
      // The service's rmdir of it needed the kernel's part (see dropControlFiles): finish it as the kernel would.
      await rm(directory, { recursive: true });
      // A group whose emptiness cannot be read is removed, not kept.
      const unread = await cgroups.acquire({ memoryBytes: 200 * mib, maxProcesses: 64 });
      assert.ok(unread);
      await dropControlFiles(unread.directories[0] as string);
      await cgroups.release(unread);
      assert.equal(await exists(unread.directories[0] as string), false);

      // Close removes the idle groups and the service's own group, and leaves the group above alone.
      await writeFile(join(fresh.directories[0] as string, 'cgroup.procs'), '');
      await cgroups.release(fresh);
      await writeFile(join(other.directories[0] as string, 'cgroup.procs'), '');
      await cgroups.release(other);
      await dropControlFiles(service);
      await cgroups.close();
      assert.equal(await exists(service), false);
      assert.equal(await exists(parent), true);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('says why when the v2 hierarchy does not offer memory and pids here', async () => {
    const { root, parent } = await cgroupV2Layout();
    try {
      await writeFile(join(parent, 'cgroup.controllers'), 'cpu io\n');
      // No v1 hierarchy in this layout either.
      const cgroups = await RunCgroups.open({ enabled: true, hostRoot: root });
      assert.equal(cgroups.state.state, 'off');
      assert.match(
        cgroups.state.state === 'off' ? cgroups.state.reason : '',
        /does not offer the memory and pids controllers here; no cgroup v1 memory controller/,
      );
      assert.equal(await cgroups.acquire({ memoryBytes: mib, maxProcesses: 1 }), undefined);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('the real sandbox with the v2 layout (files written per run, not kernel enforcement)', () => {
  let layout: { root: string; parent: string };
  let server: Awaited<ReturnType<typeof startInterpreterServer>>;
  before(async () => {
    layout = await cgroupV2Layout();
    server = await startInterpreterServer({
      cgroupHostRoot: layout.root,
      limits: { runMemoryBytes: 200 * mib },
    });
  });
  after(async () => {
    await server.close();
    await rm(layout.root, { recursive: true, force: true });
  });

  it('/health names the v2 control files in force, and a run joins its group before the sandbox starts', async () => {
    const health = await getJson(`${server.url}/health`);
    assert.equal(health.isolation.cgroups, 'v2');
    assert.equal(health.isolation.limits.run_memory_bytes, 200 * mib);
    assert.deepEqual(
      {
        run_memory_bytes: health.isolation.enforcement.run_memory_bytes,
        run_tmpfs_memory: health.isolation.enforcement.run_tmpfs_memory,
        run_swap: health.isolation.enforcement.run_swap,
        max_processes: health.isolation.enforcement.max_processes,
      },
      {
        run_memory_bytes: 'cgroup v2 memory.max per run',
        run_tmpfs_memory: 'cgroup v2 memory.max per run',
        run_swap: null,
        max_processes: 'cgroup v2 pids.max per run',
      },
    );
    const result = await execute(server.url, { code: 'print(1)' });
    assert.equal(result.stdout, '1\n', result.stderr);
    const service = await serviceGroupOf(layout.parent);
    const groups = (await readdir(service)).filter((name) => name.startsWith('run-'));
    assert.ok(groups.length >= 1, 'a run group was created');
    const joined: string[] = [];
    for (const name of groups) {
      assert.equal(await readFile(join(service, name, 'memory.max'), 'utf8'), String(200 * mib));
      const procs = await readFile(join(service, name, 'cgroup.procs'), 'utf8').catch(() => '');
      if (/^\d+\n$/.test(procs)) joined.push(procs);
    }
    // The run's first process wrote its own pid, as the kernel's cgroup.procs expects, before bubblewrap ran.
    assert.ok(joined.length >= 1, `no group was joined: ${groups.join(', ')}`);
  });
});

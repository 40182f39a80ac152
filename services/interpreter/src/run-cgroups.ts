import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { omitUndefined } from '@toolbus/spec';

/**
 * The control files that limit each run's group, by what they limit (null where no cgroup file does), so that
 * `/health` can say exactly what is enforced on this machine rather than what was intended.
 */
export interface RunCgroupControls {
  /** All processes of the run together, and the tmpfs pages they write: `memory.max` (v2) or
   * `memory.limit_in_bytes` (v1). */
  readonly memory: string;
  /** No swap beyond the memory limit: `memory.swap.max` (v2, set to 0) or `memory.memsw.limit_in_bytes` (v1);
   * null when the kernel has no swap accounting. */
  readonly swap: string | null;
  /** The run's process count: `pids.max`; null when v1's pids hierarchy is not used. */
  readonly processes: string | null;
}

/** Whether runs get a cgroup of their own: which hierarchy and which control files, or why not. */
export type RunCgroupsState =
  | { readonly state: 'active'; readonly version: 'v1' | 'v2'; readonly controls: RunCgroupControls }
  | { readonly state: 'off'; readonly reason: string };

/** Options for {@link RunCgroups.open}. */
export interface RunCgroupsOpenOptions {
  readonly enabled: boolean;
  /** Each run has a host uid of its own (see {@link RunCgroups.open}). */
  readonly processesLimitedByUid?: boolean;
  /**
   * Where the host's `/proc` and cgroup mounts are seen (default `/`): `<hostRoot>/proc/self/mounts`,
   * `<hostRoot>/proc/self/cgroup`, and every mount point they name under it. For a container that sees the host's
   * at another path, and for tests of a cgroup hierarchy this machine does not have.
   */
  readonly hostRoot?: string;
}

/** One run's (or one session's) cgroup: the `cgroup.procs` files its sandbox joins, and its directories. */
export interface RunCgroup {
  readonly procsFiles: readonly string[];
  readonly directories: readonly string[];
}

/** The limits of one group. Memory counts every process of the run together, and the tmpfs pages they write. */
export interface RunCgroupLimits {
  readonly memoryBytes: number;
  readonly maxProcesses: number;
}

// Idle groups kept per set of limits: about the runs and sessions alive at once.
const maxIdleGroups = 32;

interface Hierarchies {
  readonly version: 'v1' | 'v2';
  /** The service's own group in each hierarchy it uses (v2: one directory for both controllers). */
  readonly memory: string;
  readonly pids: string | undefined;
  /** Whether the kernel accounts swap (the swap control file exists in the service's group). */
  readonly swap: boolean;
}

/** Mount points of cgroup hierarchies (under `hostRoot`), from /proc/self/mounts: v2's, and v1's by controller. */
async function cgroupMounts(hostRoot: string): Promise<{ v2?: string; v1: Map<string, string> }> {
  const v1 = new Map<string, string>();
  let v2: string | undefined;
  const mounts = await readFile(join(hostRoot, 'proc/self/mounts'), 'utf8').catch(() => '');
  for (const line of mounts.split('\n')) {
    const [, mountPoint, type, mountOptions] = line.split(' ');
    if (mountPoint === undefined || mountOptions === undefined) continue;
    if (type === 'cgroup2') v2 ??= join(hostRoot, mountPoint);
    if (type === 'cgroup')
      for (const option of mountOptions.split(',')) v1.set(option, join(hostRoot, mountPoint));
  }
  return { ...omitUndefined({ v2 }), v1 };
}

/** The service process's own group paths, from /proc/self/cgroup: v2's ('') and v1's by controller. */
async function ownGroups(hostRoot: string): Promise<Map<string, string>> {
  const groups = new Map<string, string>();
  const text = await readFile(join(hostRoot, 'proc/self/cgroup'), 'utf8').catch(() => '');
  for (const line of text.split('\n')) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!match) continue;
    const [, controllers = '', path = '/'] = match;
    if (controllers === '') groups.set('', path);
    for (const controller of controllers.split(',')) if (controller) groups.set(controller, path);
  }
  return groups;
}

/**
 * Lets the children of `parent` use the memory and pids controllers. The kernel refuses that while the group holds
 * processes itself (cgroup v2's "no internal processes" rule), as it does when the service is the only process of
 * its container or unit: the service then moves itself into a leaf group of its own, as a container's init does,
 * and tries again. Any other process left in `parent` makes it fail, and the error becomes the reason on /health.
 */
async function delegateControllers(parent: string): Promise<void> {
  const control = join(parent, 'cgroup.subtree_control');
  try {
    await writeFile(control, '+memory +pids');
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EBUSY') throw error;
  }
  const leaf = join(parent, 'toolbus-interpreter-service');
  await mkdir(leaf).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  await writeFile(join(leaf, 'cgroup.procs'), String(process.pid));
  await writeFile(control, '+memory +pids');
}

async function tryV2(name: string, hostRoot: string): Promise<Hierarchies | string> {
  const [{ v2 }, groups] = await Promise.all([cgroupMounts(hostRoot), ownGroups(hostRoot)]);
  const own = groups.get('');
  if (v2 === undefined || own === undefined) return 'no cgroup v2 hierarchy';
  const parent = join(v2, own);
  const controllers = (await readFile(join(parent, 'cgroup.controllers'), 'utf8').catch(() => '')).split(
    /\s+/,
  );
  if (!controllers.includes('memory') || !controllers.includes('pids')) {
    return `cgroup v2 at ${v2} does not offer the memory and pids controllers here`;
  }
  const service = join(parent, name);
  try {
    await delegateControllers(parent);
    await mkdir(service);
    await writeFile(join(service, 'cgroup.subtree_control'), '+memory +pids');
  } catch (error) {
    await rmdir(service).catch(() => {});
    return `cannot create cgroup v2 groups: ${error instanceof Error ? error.message : String(error)}`;
  }
  return {
    version: 'v2',
    memory: service,
    pids: undefined,
    swap: existsSync(join(service, 'memory.swap.max')),
  };
}

async function tryV1(name: string, usePids: boolean, hostRoot: string): Promise<Hierarchies | string> {
  const [{ v1 }, groups] = await Promise.all([cgroupMounts(hostRoot), ownGroups(hostRoot)]);
  const memoryMount = v1.get('memory');
  if (memoryMount === undefined) return 'no cgroup v1 memory controller';
  const memory = join(memoryMount, groups.get('memory') ?? '/', name);
  const pidsMount = usePids ? v1.get('pids') : undefined;
  const pids = pidsMount === undefined ? undefined : join(pidsMount, groups.get('pids') ?? '/', name);
  try {
    await mkdir(memory);
    if (pids !== undefined) await mkdir(pids);
  } catch (error) {
    await rmdir(memory).catch(() => {});
    return `cannot create cgroup v1 groups: ${error instanceof Error ? error.message : String(error)}`;
  }
  return { version: 'v1', memory, pids, swap: existsSync(join(memory, 'memory.memsw.limit_in_bytes')) };
}

function controlsOf(hierarchies: Hierarchies): RunCgroupControls {
  if (hierarchies.version === 'v2')
    return { memory: 'memory.max', swap: hierarchies.swap ? 'memory.swap.max' : null, processes: 'pids.max' };
  return {
    memory: 'memory.limit_in_bytes',
    swap: hierarchies.swap ? 'memory.memsw.limit_in_bytes' : null,
    processes: hierarchies.pids === undefined ? null : 'pids.max',
  };
}

/**
 * A cgroup per run and per session, under one group of the service's own, so a run's memory (all of its processes
 * together, and the tmpfs pages they write) and its process count have one limit each. Uses cgroup v2 where the
 * service can create and delegate groups, else the v1 memory and pids hierarchies; when neither works (not root, a
 * read-only cgroupfs) the state says why and runs keep only their per-process rlimits.
 */
export class RunCgroups {
  readonly #hierarchies: Hierarchies | undefined;
  readonly state: RunCgroupsState;
  // Empty groups ready for the next run, by their limits.
  readonly #idle = new Map<string, RunCgroup[]>();
  readonly #keys = new WeakMap<RunCgroup, string>();

  private constructor(hierarchies: Hierarchies | undefined, state: RunCgroupsState) {
    this.#hierarchies = hierarchies;
    this.state = state;
  }

  /**
   * Creates the service's group (or finds why it cannot). Never throws. With `processesLimitedByUid` (each run has
   * a host uid of its own, so RLIMIT_NPROC already counts exactly its processes), v1's separate pids hierarchy is
   * left out: joining each v1 hierarchy is one more cgroup migration per run, and a migration waits for an RCU
   * grace period (several milliseconds, a tenth of a short run). v2 has both controllers in one group.
   */
  static async open(options: RunCgroupsOpenOptions): Promise<RunCgroups> {
    if (!options.enabled)
      return new RunCgroups(undefined, { state: 'off', reason: 'disabled by configuration' });
    if (process.getuid?.() !== 0) {
      return new RunCgroups(undefined, { state: 'off', reason: 'the service is not root' });
    }
    const name = `toolbus-interpreter-${randomUUID()}`;
    const hostRoot = options.hostRoot ?? '/';
    const v2 = await tryV2(name, hostRoot);
    if (typeof v2 !== 'string')
      return new RunCgroups(v2, { state: 'active', version: 'v2', controls: controlsOf(v2) });
    const v1 = await tryV1(name, options.processesLimitedByUid !== true, hostRoot);
    if (typeof v1 !== 'string')
      return new RunCgroups(v1, { state: 'active', version: 'v1', controls: controlsOf(v1) });
    return new RunCgroups(undefined, { state: 'off', reason: `${v2}; ${v1}` });
  }

  /** The service's own group in each hierarchy (none when cgroups are off): what a killed service leaves behind. */
  get serviceDirectories(): readonly string[] {
    const hierarchies = this.#hierarchies;
    if (hierarchies === undefined) return [];
    return [hierarchies.memory, ...(hierarchies.pids === undefined ? [] : [hierarchies.pids])];
  }

  /** Whether the process limit is a cgroup's (v2 always; v1 when the pids hierarchy is mounted). */
  get limitsProcesses(): boolean {
    return (
      this.#hierarchies !== undefined &&
      (this.#hierarchies.version === 'v2' || this.#hierarchies.pids !== undefined)
    );
  }

  /**
   * A group with `limits` for one run or session, or undefined when cgroups are off. Groups are reused: creating and
   * removing a memory cgroup costs the kernel more than the run of a short script, and an empty group holds nothing
   * of the run before (its processes are gone; page cache it was charged for is reclaimable under its limit).
   */
  async acquire(limits: RunCgroupLimits): Promise<RunCgroup | undefined> {
    if (this.#hierarchies === undefined) return undefined;
    const key = `${limits.memoryBytes}/${limits.maxProcesses}`;
    const idle = this.#idle.get(key)?.pop();
    if (idle !== undefined) return idle;
    const group = await this.#create(limits);
    this.#keys.set(group, key);
    return group;
  }

  /** Gives a group back once its run or session is over: kept for reuse when empty, else removed. */
  async release(group: RunCgroup): Promise<void> {
    const key = this.#keys.get(group);
    const [memory] = group.directories;
    const idle = key === undefined ? undefined : (this.#idle.get(key) ?? []);
    if (idle !== undefined && key !== undefined && memory !== undefined && idle.length < maxIdleGroups) {
      const procs = await readFile(join(memory, 'cgroup.procs'), 'utf8').catch(() => 'unreadable');
      if (procs.trim() === '') {
        idle.push(group);
        this.#idle.set(key, idle);
        return;
      }
    }
    this.#keys.delete(group);
    await this.#remove(group);
  }

  async #create(limits: RunCgroupLimits): Promise<RunCgroup> {
    const hierarchies = this.#hierarchies;
    if (hierarchies === undefined) throw new Error('cgroups are off');
    const id = `run-${randomUUID()}`;
    const memory = join(hierarchies.memory, id);
    const directories: string[] = [];
    try {
      await mkdir(memory);
      directories.push(memory);
      if (hierarchies.version === 'v2') {
        await writeFile(join(memory, 'memory.max'), String(limits.memoryBytes));
        // No swap: it would let a run hold more than its limit.
        if (hierarchies.swap) await writeFile(join(memory, 'memory.swap.max'), '0');
        await writeFile(join(memory, 'pids.max'), String(limits.maxProcesses));
        return { procsFiles: [join(memory, 'cgroup.procs')], directories };
      }
      await writeFile(join(memory, 'memory.limit_in_bytes'), String(limits.memoryBytes));
      // Memory plus swap at the same figure: no swap beyond the limit (absent when the kernel has no swap accounting).
      if (hierarchies.swap)
        await writeFile(join(memory, 'memory.memsw.limit_in_bytes'), String(limits.memoryBytes));
      const procsFiles = [join(memory, 'cgroup.procs')];
      if (hierarchies.pids !== undefined) {
        const pids = join(hierarchies.pids, id);
        await mkdir(pids);
        directories.push(pids);
        await writeFile(join(pids, 'pids.max'), String(limits.maxProcesses));
        procsFiles.push(join(pids, 'cgroup.procs'));
      }
      return { procsFiles, directories };
    } catch (error) {
      await this.#remove({ procsFiles: [], directories });
      throw error;
    }
  }

  /** Removes a group once its processes are gone (a dying pid namespace may take a moment to empty it). */
  async #remove(group: RunCgroup): Promise<void> {
    for (const directory of [...group.directories].reverse()) {
      for (let attempt = 0; ; attempt += 1) {
        try {
          await rmdir(directory);
          break;
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === 'ENOENT' || code !== 'EBUSY' || attempt >= 50) break;
          await sleep(20);
        }
      }
    }
  }

  /** Removes the idle groups and the service's own (every run and session has released its group by then). */
  async close(): Promise<void> {
    const hierarchies = this.#hierarchies;
    if (hierarchies === undefined) return;
    for (const groups of this.#idle.values()) for (const group of groups.splice(0)) await this.#remove(group);
    await this.#remove({
      procsFiles: [],
      directories: [hierarchies.memory, ...(hierarchies.pids === undefined ? [] : [hierarchies.pids])],
    });
  }
}

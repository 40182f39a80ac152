import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { omitUndefined } from '@toolbus/spec';

/** Whether runs get a cgroup of their own: which hierarchy, or why not. */
export type RunCgroupsState =
  | { readonly state: 'active'; readonly version: 'v1' | 'v2' }
  | { readonly state: 'off'; readonly reason: string };

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
}

/** Mount points of cgroup hierarchies, from /proc/self/mounts: v2's, and v1's by controller. */
async function cgroupMounts(): Promise<{ v2?: string; v1: Map<string, string> }> {
  const v1 = new Map<string, string>();
  let v2: string | undefined;
  const mounts = await readFile('/proc/self/mounts', 'utf8').catch(() => '');
  for (const line of mounts.split('\n')) {
    const [, mountPoint, type, mountOptions] = line.split(' ');
    if (mountPoint === undefined || mountOptions === undefined) continue;
    if (type === 'cgroup2') v2 ??= mountPoint;
    if (type === 'cgroup') for (const option of mountOptions.split(',')) v1.set(option, mountPoint);
  }
  return { ...omitUndefined({ v2 }), v1 };
}

/** The service process's own group paths, from /proc/self/cgroup: v2's ('') and v1's by controller. */
async function ownGroups(): Promise<Map<string, string>> {
  const groups = new Map<string, string>();
  const text = await readFile('/proc/self/cgroup', 'utf8').catch(() => '');
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

async function tryV2(name: string): Promise<Hierarchies | string> {
  const [{ v2 }, groups] = await Promise.all([cgroupMounts(), ownGroups()]);
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
  return { version: 'v2', memory: service, pids: undefined };
}

async function tryV1(name: string, usePids: boolean): Promise<Hierarchies | string> {
  const [{ v1 }, groups] = await Promise.all([cgroupMounts(), ownGroups()]);
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
  return { version: 'v1', memory, pids };
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
  static async open(options: { enabled: boolean; processesLimitedByUid?: boolean }): Promise<RunCgroups> {
    if (!options.enabled)
      return new RunCgroups(undefined, { state: 'off', reason: 'disabled by configuration' });
    if (process.getuid?.() !== 0) {
      return new RunCgroups(undefined, { state: 'off', reason: 'the service is not root' });
    }
    const name = `toolbus-interpreter-${randomUUID()}`;
    const v2 = await tryV2(name);
    if (typeof v2 !== 'string') return new RunCgroups(v2, { state: 'active', version: 'v2' });
    const v1 = await tryV1(name, options.processesLimitedByUid !== true);
    if (typeof v1 !== 'string') return new RunCgroups(v1, { state: 'active', version: 'v1' });
    return new RunCgroups(undefined, { state: 'off', reason: `${v2}; ${v1}` });
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
        if (existsSync(join(memory, 'memory.swap.max')))
          await writeFile(join(memory, 'memory.swap.max'), '0');
        await writeFile(join(memory, 'pids.max'), String(limits.maxProcesses));
        return { procsFiles: [join(memory, 'cgroup.procs')], directories };
      }
      await writeFile(join(memory, 'memory.limit_in_bytes'), String(limits.memoryBytes));
      // Memory plus swap at the same figure: no swap beyond the limit (absent when the kernel has no swap accounting).
      const memsw = join(memory, 'memory.memsw.limit_in_bytes');
      if (existsSync(memsw)) await writeFile(memsw, String(limits.memoryBytes));
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

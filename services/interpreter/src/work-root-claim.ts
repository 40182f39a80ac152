import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** What a service records in its work root: who owns it, and what it created outside it (its cgroups). */
interface InstanceRecord {
  readonly pid: number;
  /** The owner's start time in clock ticks since boot (`/proc/<pid>/stat`), so a reused pid is not taken for it. */
  readonly startTicks: string | null;
  readonly cgroups: readonly string[];
}

/** A work root held by this process: what the instance before it left behind, and how to record its own state. */
export interface WorkRootClaim {
  /** The cgroup directories the previous (dead) instance of this work root created and never removed. */
  readonly staleCgroups: readonly string[];
  /** Records this instance's cgroup directories, so the next instance can remove them if this one is killed. */
  recordCgroups(directories: readonly string[]): Promise<void>;
  /** Forgets the record at a clean close (everything it named is gone by then). */
  release(): Promise<void>;
}

const recordName = 'instance.json';

/** The start time of a live process, or null when it is not running (or this is not Linux). */
async function startTicksOf(pid: number): Promise<string | null> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat === undefined) return null;
  // Fields after the command name, which may itself hold spaces and parentheses: the start time is field 22.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19] ?? null;
}

async function isAlive(record: InstanceRecord): Promise<boolean> {
  if (record.pid === process.pid) return false;
  const ticks = await startTicksOf(record.pid);
  if (ticks !== null) return record.startTicks === null || ticks === record.startTicks;
  try {
    process.kill(record.pid, 0);
    return true;
  } catch {
    return false;
  }
}

function parseRecord(text: string | undefined): InstanceRecord | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<InstanceRecord>;
    if (!Number.isSafeInteger(value.pid)) return undefined;
    return {
      pid: value.pid as number,
      startTicks: typeof value.startTicks === 'string' ? value.startTicks : null,
      cgroups: Array.isArray(value.cgroups) ? value.cgroups.filter((entry) => typeof entry === 'string') : [],
    };
  } catch {
    return undefined;
  }
}

/**
 * Takes a work root for this process. A stable work root is what lets a restarted service clean up after a killed
 * one (its tmpfs workspaces, folders and cgroups); two live services on one root would delete each other's
 * workspaces, so a root whose recorded owner still runs is refused, naming that process.
 */
export async function claimWorkRoot(workRoot: string): Promise<WorkRootClaim> {
  await mkdir(workRoot, { recursive: true, mode: 0o711 });
  const path = join(workRoot, recordName);
  const previous = parseRecord(await readFile(path, 'utf8').catch(() => undefined));
  if (previous !== undefined && (await isAlive(previous))) {
    throw new Error(
      `the work root ${workRoot} is in use by process ${previous.pid} (another interpreter service); give each service its own work root`,
    );
  }
  const startTicks = await startTicksOf(process.pid);
  const write = async (cgroups: readonly string[]): Promise<void> => {
    const record: InstanceRecord = { pid: process.pid, startTicks, cgroups };
    // Written whole, then renamed: a kill mid-write leaves the old record, never half of one.
    await writeFile(`${path}.tmp`, JSON.stringify(record), { mode: 0o600 });
    await rename(`${path}.tmp`, path);
  };
  await write(previous?.cgroups ?? []);
  return {
    staleCgroups: previous?.cgroups ?? [],
    recordCgroups: (directories) => write(directories),
    release: () => rm(path, { force: true }),
  };
}

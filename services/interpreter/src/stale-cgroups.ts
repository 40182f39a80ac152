import { readdir, readFile, rmdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

// The name RunCgroups gives a service's own group: nothing else is ever removed from a record.
const serviceGroupName = /^toolbus-interpreter-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Kills what is left in one group (runs of a dead service) and removes it once the kernel has emptied it. */
async function removeGroup(directory: string): Promise<boolean> {
  const children = await readdir(directory, { withFileTypes: true }).catch(() => []);
  for (const child of children) if (child.isDirectory()) await removeGroup(join(directory, child.name));
  for (let attempt = 0; ; attempt += 1) {
    const procs = await readFile(join(directory, 'cgroup.procs'), 'utf8').catch(() => '');
    for (const pid of procs.split('\n').filter(Boolean)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {}
    }
    try {
      await rmdir(directory);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return true;
      if (code !== 'EBUSY' || attempt >= 100) return false;
      await sleep(20);
    }
  }
}

/**
 * Removes the cgroups a killed instance of this service created (its `toolbus-interpreter-<uuid>` group in each
 * hierarchy, with the run groups inside), ending any process still in them. Returns the directories that could
 * not be removed, to be tried again by the next start.
 */
export async function removeStaleCgroups(directories: readonly string[]): Promise<string[]> {
  const remaining: string[] = [];
  for (const directory of directories) {
    if (!serviceGroupName.test(basename(directory))) continue;
    if (!(await removeGroup(directory))) remaining.push(directory);
  }
  return remaining;
}

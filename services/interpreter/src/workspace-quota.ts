import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/**
 * Mounts a size-limited tmpfs on a workspace directory (root only), so one run cannot fill the host's disk:
 * RLIMIT_FSIZE caps each file, this caps their sum. Owned by the run's uid, mode 0700, no setuid, no devices.
 */
export async function mountWorkspaceQuota(options: {
  directory: string;
  bytes: number;
  uid: number;
}): Promise<void> {
  await execFileAsync(
    '/usr/bin/mount',
    [
      '-t',
      'tmpfs',
      '-o',
      `size=${options.bytes},mode=0700,uid=${options.uid},gid=${options.uid},nosuid,nodev`,
      'tmpfs',
      options.directory,
    ],
    { env: { PATH: '/usr/bin:/bin' } },
  );
}

/** Unmounts a workspace tmpfs; a directory that is not a mount point is left alone. */
export async function unmountWorkspaceQuota(directory: string): Promise<void> {
  try {
    await execFileAsync('/usr/bin/umount', ['--lazy', directory], { env: { PATH: '/usr/bin:/bin' } });
  } catch {}
}

/** Every mount point under `root` (leftovers of a crashed service), deepest first. */
export async function mountPointsUnder(root: string): Promise<string[]> {
  let mounts: string;
  try {
    mounts = await readFile('/proc/self/mounts', 'utf8');
  } catch {
    return [];
  }
  return mounts
    .split('\n')
    .map((line) => (line.split(' ')[1] ?? '').replace(/\\040/g, ' '))
    .filter((path) => path.startsWith(`${root}/`))
    .sort((left, right) => right.length - left.length);
}

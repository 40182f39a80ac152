import { existsSync } from 'node:fs';
import { type SkillMount, skillsMountDirectory } from './skills-directory.ts';

/** A host path made visible read-only inside the sandbox. */
export interface SandboxBind {
  readonly source: string;
  readonly target: string;
}

/** Options for {@link buildSandboxCommand}. */
export interface SandboxCommandOptions {
  readonly bubblewrapPath: string;
  /** The host directory bound read-write at /workspace. */
  readonly workspaceDirectory: string;
  /** The command run inside, e.g. ['/usr/bin/python3', '/sandbox/main.py']. */
  readonly command: readonly string[];
  /** Host files copied into the sandbox read-only (the code file, the runner). They are handed to bwrap as open
   * descriptors (`--ro-bind-data`), not bound, so their host paths never show in the sandbox's /proc/self/mountinfo. */
  readonly readOnlyFiles?: readonly SandboxBind[];
  /** Host paths bound read-only (`--ro-bind`): only what cannot be copied in as data, such as the egress proxy's
   * Unix socket (a socket on a read-only bind still accepts connections). */
  readonly readOnlyBinds?: readonly SandboxBind[];
  /** The compiled seccomp program (see `compileSyscallFilter`); without it runs have no syscall filter. */
  readonly syscallFilterPath?: string;
  /** `cgroup.procs` files the sandbox joins before anything starts (the run's cgroups), so every process it ever
   * forks is counted against the run's memory and process limits. */
  readonly cgroupProcsFiles?: readonly string[];
  /** Skills bound read-only at /workspace/managed/skills/<name>, on a read-only tmpfs that holds nothing else. */
  readonly skills?: readonly SkillMount[];
  /** When set (service running as root), the sandbox runs as this host uid/gid, which makes RLIMIT_NPROC count
   * only this execution's processes and keeps other runs' directories (mode 0700) unreadable. */
  readonly hostUid?: number;
  readonly cpuSeconds: number;
  readonly memoryBytes: number;
  readonly maxProcesses: number;
  readonly maxFileBytes: number;
  readonly tmpBytes: number;
  /** Keep the host network (never the default: a sandbox gets only its own loopback). */
  readonly shareNetwork?: boolean;
}

/** The environment inside the sandbox: nothing from the service's own environment (no secrets can leak). */
export const sandboxEnvironment: Readonly<Record<string, string>> = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  HOME: '/tmp',
  TMPDIR: '/tmp',
  LANG: 'C.UTF-8',
  MPLBACKEND: 'Agg',
  MPLCONFIGDIR: '/tmp/matplotlib',
  PYTHONUNBUFFERED: '1',
  PYTHONDONTWRITEBYTECODE: '1',
  PYTHONIOENCODING: 'utf-8',
  // One BLAS thread: threads count against the process limit and each reserves address space.
  OPENBLAS_NUM_THREADS: '1',
  OMP_NUM_THREADS: '1',
};

// Only what Debian's CPython and its libraries read at run time: the dynamic loader's cache, the alternatives
// links (libblas.so.3 resolves through them), fonts and matplotlib's site configuration. No passwd, no hosts.
const systemConfigurationFiles = [
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/alternatives',
  '/etc/fonts',
  '/etc/matplotlibrc',
  '/etc/python3',
  '/etc/localtime',
  '/etc/mime.types',
  '/etc/ssl/certs',
];

/** What to spawn: the argv, and the host files to open as descriptors 3, 4, ... of the spawned process. */
export interface SandboxCommand {
  readonly argv: readonly string[];
  readonly inheritedFiles: readonly string[];
}

// Joins the cgroups named before `--` (writing its own pid, which the exec keeps), then becomes the command.
const joinCgroupsScript =
  'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"';

/**
 * The one place where the sandbox's command line is built (every option of the sandbox lands here). The argv
 * (program first) that runs `command` inside bubblewrap: the run's cgroups joined first, every namespace unshared
 * (user, pid, network, ipc, uts, mount, cgroup), a read-only /usr, a private /tmp of fixed size, the workspace at
 * /workspace, a cleared environment, no capabilities, no nested user namespaces, the seccomp filter, and rlimits
 * applied by prlimit to the command inside.
 */
export function buildSandboxCommand(options: SandboxCommandOptions): SandboxCommand {
  const argv: string[] = [];
  const inheritedFiles: string[] = [];
  // Each inherited file becomes the next descriptor after stdin, stdout and stderr.
  const inherit = (path: string): string => String(3 + inheritedFiles.push(path) - 1);
  const cgroups = options.cgroupProcsFiles ?? [];
  if (cgroups.length > 0) argv.push('/bin/sh', '-c', joinCgroupsScript, 'sandbox-cgroups', ...cgroups, '--');
  if (options.hostUid !== undefined) {
    argv.push(
      '/usr/bin/setpriv',
      `--reuid=${options.hostUid}`,
      `--regid=${options.hostUid}`,
      '--clear-groups',
      '--inh-caps=-all',
      '--bounding-set=-all',
      '--',
    );
  }
  argv.push(options.bubblewrapPath);
  argv.push('--unshare-all', '--unshare-user', '--disable-userns');
  if (options.shareNetwork === true) argv.push('--share-net');
  // --as-pid-1: the command is the namespace's init, and bwrap waits for it. With bwrap's own init instead, bwrap
  // exits on the command's status before its init has exited, so the init is orphaned to the service (a zombie
  // that nobody reaps when the service is a container's pid 1).
  argv.push('--as-pid-1');
  argv.push('--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--uid', '65534', '--gid', '65534');
  argv.push('--hostname', 'sandbox');
  argv.push('--ro-bind', '/usr', '/usr');
  for (const link of ['lib', 'lib64', 'bin', 'sbin']) {
    argv.push('--symlink', `usr/${link}`, `/${link}`);
  }
  for (const path of systemConfigurationFiles) {
    if (existsSync(path)) argv.push('--ro-bind', path, path);
  }
  argv.push('--proc', '/proc', '--dev', '/dev');
  // Every writable place is a mount with a size (or the workspace): /dev and bwrap's root tmpfs become read-only,
  // else writing to /x or /dev/x would fill memory without a limit.
  argv.push('--size', String(options.tmpBytes), '--tmpfs', '/dev/shm', '--remount-ro', '/dev');
  argv.push('--size', String(options.tmpBytes), '--tmpfs', '/tmp');
  argv.push('--bind', options.workspaceDirectory, '/workspace');
  const skills = options.skills ?? [];
  if (skills.length > 0) {
    // A small tmpfs over /workspace/managed, made read-only once the skills are bound in it: the code sees exactly
    // the requested skills and can neither write into them nor plant other folders beside them. It comes after
    // the workspace bind, so the workspace's writable mount cannot hide it.
    const managed = skillsMountDirectory.slice(0, skillsMountDirectory.lastIndexOf('/'));
    argv.push('--size', String(64 * 1024), '--tmpfs', managed, '--dir', skillsMountDirectory);
    for (const skill of skills) argv.push('--ro-bind', skill.source, `${skillsMountDirectory}/${skill.name}`);
    argv.push('--remount-ro', managed);
  }
  for (const file of options.readOnlyFiles ?? [])
    argv.push('--ro-bind-data', inherit(file.source), file.target);
  for (const bind of options.readOnlyBinds ?? []) argv.push('--ro-bind', bind.source, bind.target);
  argv.push('--remount-ro', '/');
  if (options.syscallFilterPath !== undefined) argv.push('--seccomp', inherit(options.syscallFilterPath));
  argv.push('--chdir', '/workspace', '--clearenv');
  for (const [name, value] of Object.entries(sandboxEnvironment)) argv.push('--setenv', name, value);
  // The rlimits apply inside, to the command only: bwrap itself writes the --ro-bind-data files, which a small
  // RLIMIT_FSIZE would refuse. prlimit is Debian's, from the read-only /usr.
  argv.push('--', ...rlimitPrefix(options), ...options.command);
  return { argv, inheritedFiles };
}

function rlimitPrefix(options: SandboxCommandOptions): string[] {
  const argv = [
    '/usr/bin/prlimit',
    `--cpu=${options.cpuSeconds}`,
    `--as=${options.memoryBytes}`,
    `--fsize=${options.maxFileBytes}`,
    '--core=0',
  ];
  // Without a uid of its own, RLIMIT_NPROC would count the service user's processes too (and root is exempt).
  if (options.hostUid !== undefined) argv.push(`--nproc=${options.maxProcesses}`);
  argv.push('--');
  return argv;
}

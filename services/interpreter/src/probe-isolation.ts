import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import type { RunCgroupsState } from './run-cgroups.ts';
import type { SandboxExecutor } from './sandbox-executor.ts';

const execFileAsync = promisify(execFile);

/** What `/health` says about the sandbox, measured at start by running a probe inside it. */
export type IsolationReport = {
  /** 'ok': every protection is in place. 'degraded': runs are sandboxed but something is missing (see reason).
   * 'error': no sandbox could be created; executions are refused. */
  readonly status: 'ok' | 'degraded' | 'error';
  readonly reason?: string;
  /** Whether executions run at all. */
  readonly sandbox: boolean;
  readonly namespaces: readonly string[];
  /** 'none' = only the sandbox's own loopback. */
  readonly network: 'none' | 'host';
  readonly filesystem: string;
  /** True when each run has its own host uid (the service runs as root), which makes the process limit exact. */
  readonly perExecutionUid: boolean;
  /** True when every run has the seccomp filter (refused syscalls and socket families; see reason when false). */
  readonly syscallFilter: boolean;
  /** The cgroup hierarchy that limits each run and session as a whole, or null (see reason). */
  readonly cgroups: 'v1' | 'v2' | null;
  readonly limits: {
    readonly cpu_seconds: number;
    readonly memory_bytes: number;
    readonly max_processes: number | null;
    readonly max_file_bytes: number;
    readonly max_output_bytes: number;
    readonly tmp_bytes: number;
    /** Null when workspaces could not be size-limited (see reason). */
    readonly workspace_bytes: number | null;
    /** Memory of one run as a whole (processes and the tmpfs they write); null without cgroups. */
    readonly run_memory_bytes: number | null;
    /** The tmpfs the service may hold across every live workspace. */
    readonly total_workspace_bytes: number;
    readonly max_timeout_ms: number;
  };
  /**
   * How each limit is enforced on this machine: the mechanism, or null when nothing enforces it here (the reason
   * says why). Measured from what the service could set up, not from its configuration.
   */
  readonly enforcement: LimitEnforcement;
  readonly bubblewrap?: string;
  /**
   * When the probe ran inside the sandbox: at this start (`ran`), or at an earlier start of a service with the same
   * sandbox settings in this process (its result reused; the limits and enforcement are still this service's own).
   */
  readonly probe?: { readonly ran: boolean; readonly at: string };
  readonly python?: {
    readonly path: string;
    readonly version: string;
    readonly packages: Record<string, string>;
  };
};

/** The mechanism behind each limit of an isolation report, or null when it is not in force here. */
export interface LimitEnforcement {
  /** Always in force: prlimit inside the sandbox. */
  readonly cpu_seconds: 'RLIMIT_CPU per process';
  readonly memory_bytes: 'RLIMIT_AS per process';
  readonly max_file_bytes: 'RLIMIT_FSIZE per process';
  readonly tmp_bytes: 'tmpfs size of /tmp and /dev/shm';
  /** All processes of a run together: e.g. `cgroup v2 memory.max per run`. */
  readonly run_memory_bytes: string | null;
  /** The tmpfs pages a run writes (workspace, /tmp, /dev/shm), counted in the run's cgroup memory. */
  readonly run_tmpfs_memory: string | null;
  /** No swap beyond the run's memory: e.g. `cgroup v2 memory.swap.max = 0 per run`. */
  readonly run_swap: string | null;
  /** Processes and threads of a run: `cgroup v2 pids.max per run`, or RLIMIT_NPROC with a host uid per run. */
  readonly max_processes: string | null;
  /** A workspace's total size: its own tmpfs (needs root). */
  readonly workspace_bytes: 'tmpfs size per workspace' | null;
  readonly total_workspace_bytes: 'reserved by the service before a workspace is created';
}

/** What enforces each limit, from the cgroup state, the uid setup and whether workspaces have their own tmpfs. */
export function limitEnforcement(options: {
  readonly cgroups: RunCgroupsState;
  readonly perExecutionUid: boolean;
  readonly workspaceQuota: boolean;
}): LimitEnforcement {
  const { cgroups } = options;
  const active = cgroups.state === 'active' ? cgroups : undefined;
  const inGroup = (file: string | null, suffix = '') =>
    active === undefined || file === null ? null : `cgroup ${active.version} ${file}${suffix} per run`;
  return {
    cpu_seconds: 'RLIMIT_CPU per process',
    memory_bytes: 'RLIMIT_AS per process',
    max_file_bytes: 'RLIMIT_FSIZE per process',
    tmp_bytes: 'tmpfs size of /tmp and /dev/shm',
    run_memory_bytes: inGroup(active?.controls.memory ?? null),
    // The kernel charges tmpfs pages to the memory cgroup of the process that writes them, in v1 and v2 alike.
    run_tmpfs_memory: inGroup(active?.controls.memory ?? null),
    run_swap: inGroup(active?.controls.swap ?? null, active?.version === 'v2' ? ' = 0' : ' = memory limit'),
    max_processes:
      inGroup(active?.controls.processes ?? null) ??
      (options.perExecutionUid ? 'RLIMIT_NPROC of a host uid per run' : null),
    workspace_bytes: options.workspaceQuota ? 'tmpfs size per workspace' : null,
    total_workspace_bytes: 'reserved by the service before a workspace is created',
  };
}

// Runs inside the sandbox and reports what it sees, so /health states what is enforced, not what was intended.
const probeCode = `import json, os, socket, sys
# /proc/net/dev, not socket.if_nameindex(): that needs a netlink socket, which the syscall filter refuses.
interfaces = [line.split(':')[0].strip() for line in open('/proc/net/dev').read().splitlines()[2:]]
report = {'uid': os.getuid(), 'pid': os.getpid(), 'interfaces': interfaces,
          'usr_writable': os.access('/usr', os.W_OK), 'root_writable': os.access('/', os.W_OK), 'version': sys.version.split()[0], 'packages': {}}
for name in ('numpy', 'pandas', 'matplotlib'):
    try:
        report['packages'][name] = __import__(name).__version__
    except Exception as error:
        report['packages'][name] = 'missing: ' + type(error).__name__
print(json.dumps(report))
`;

/** Finds an executable on PATH (or checks an absolute path). */
export async function findExecutable(name: string): Promise<string | undefined> {
  const candidates = name.includes('/')
    ? [name]
    : (process.env.PATH ?? '/usr/bin:/bin').split(delimiter).map((directory) => join(directory, name));
  for (const candidate of candidates) {
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

/**
 * Checks that the sandbox can be created on this machine by running a probe in it, and describes what it enforces.
 * Never throws: a failure becomes status 'error' with the exact reason (bwrap's own message when it refused).
 */
export async function probeIsolation(executor: SandboxExecutor): Promise<IsolationReport> {
  const { limits } = executor.options;
  const perExecutionUid = executor.options.uids !== undefined;
  const filter = executor.syscallFilter;
  const cgroups = executor.cgroups;
  const base = {
    namespaces: ['user', 'pid', 'network', 'ipc', 'uts', 'mount', 'cgroup'],
    network: executor.options.shareNetwork === true ? ('host' as const) : ('none' as const),
    filesystem: 'read-only /usr and minimal /etc; private /workspace (0700) and /tmp (tmpfs); nothing else',
    perExecutionUid,
    syscallFilter: filter.state === 'active',
    cgroups: cgroups.state === 'active' ? cgroups.version : null,
    limits: {
      cpu_seconds: limits.cpuSeconds,
      memory_bytes: limits.memoryBytes,
      max_processes: perExecutionUid || executor.cgroupsLimitProcesses ? limits.maxProcesses : null,
      max_file_bytes: limits.maxFileBytes,
      max_output_bytes: limits.maxOutputBytes,
      tmp_bytes: limits.tmpBytes,
      workspace_bytes: null as number | null,
      run_memory_bytes: cgroups.state === 'active' ? limits.runMemoryBytes : null,
      total_workspace_bytes: limits.totalWorkspaceBytes,
      max_timeout_ms: limits.maxTimeoutMs,
    },
    enforcement: limitEnforcement({ cgroups, perExecutionUid, workspaceQuota: false }),
  };
  const failed = (reason: string): IsolationReport => ({ status: 'error', reason, sandbox: false, ...base });
  for (const tool of ['/usr/bin/prlimit', ...(perExecutionUid ? ['/usr/bin/setpriv'] : [])]) {
    if ((await findExecutable(tool)) === undefined)
      return failed(`${tool} not found (Debian package util-linux)`);
  }
  if ((await findExecutable(executor.options.bubblewrapPath)) === undefined) {
    return failed(`bubblewrap not found at ${executor.options.bubblewrapPath} (Debian package bubblewrap)`);
  }
  if ((await findExecutable(executor.options.pythonPath)) === undefined) {
    return failed(`python not found at ${executor.options.pythonPath} (Debian package python3)`);
  }
  let bubblewrap = 'unknown';
  try {
    bubblewrap = (await execFileAsync(executor.options.bubblewrapPath, ['--version'])).stdout.trim();
  } catch {}
  // A process that starts many services with the same sandbox (`toolbus serve` starts one per turn when no sandbox
  // service is configured) runs the probe once: the machine and these settings are what it measures.
  const probeKey = JSON.stringify([
    executor.options.bubblewrapPath,
    executor.options.pythonPath,
    base.network,
    perExecutionUid,
    executor.options.egress !== undefined,
    filter.state,
    cgroups.state,
  ]);
  const reused = probedSandboxes.get(probeKey);
  let seen: ProbeSeen;
  let probe: IsolationReport['probe'];
  if (reused !== undefined) {
    // Still make (and drop) one workspace: that is where this service learns whether its workspaces get a quota.
    try {
      await executor.removeWorkspace(await executor.createWorkspace());
    } catch (error) {
      return failed(`the sandbox probe failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    seen = reused.seen;
    probe = { ran: false, at: reused.at };
  } else {
    const workspace = await executor.createWorkspace();
    try {
      // As long as any run may take: the probe imports numpy, pandas and matplotlib (about a second of CPU), which
      // on a loaded machine takes many times that; a probe cut off by load would mark the sandbox unusable for the
      // life of the process (`toolbus chat` and `serve` then offer no run_python), though code runs, only slowly.
      const timeoutMs = limits.maxTimeoutMs;
      const result = await executor.runPython({ workspace, code: probeCode, timeoutMs });
      if (result.timedOut) return failed(`the sandbox probe did not finish within ${timeoutMs} ms`);
      if (result.exitCode !== 0) {
        const detail = (result.stderr || result.stdout).trim().slice(0, 2000);
        return failed(`the sandbox could not be created (exit ${String(result.exitCode)}): ${detail}`);
      }
      seen = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as ProbeSeen;
    } catch (error) {
      return failed(`the sandbox probe failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      await executor.removeWorkspace(workspace);
    }
    probe = { ran: true, at: new Date().toISOString() };
  }
  {
    const problems: string[] = [];
    if (seen.usr_writable) problems.push('/usr is writable inside the sandbox');
    if (seen.root_writable) problems.push('/ is writable inside the sandbox');
    if (base.network === 'none' && seen.interfaces.some((name) => name !== 'lo')) {
      problems.push(`network interfaces visible: ${seen.interfaces.join(', ')}`);
    }
    if (seen.pid > 10) problems.push('no private pid namespace');
    if (problems.length > 0) return failed(`the sandbox is not isolated: ${problems.join('; ')}`);
    // Only a sandbox that proved isolated is remembered; a failure is probed again at the next start.
    if (probe.ran) probedSandboxes.set(probeKey, { seen, at: probe.at });
    const degraded: string[] = [];
    const quota = executor.workspaceQuota;
    if (quota.state === 'active') {
      base.limits.workspace_bytes = limits.workspaceBytes;
      base.enforcement = limitEnforcement({ cgroups, perExecutionUid, workspaceQuota: true });
    } else
      degraded.push(
        quota.state === 'failed' ? quota.reason : 'workspaces have no size limit (the service is not root)',
      );
    if (filter.state === 'off') degraded.push(filter.reason);
    if (cgroups.state === 'off') {
      degraded.push(
        `no cgroup per run (${cgroups.reason}): memory is limited per process (address space), not per run`,
      );
    }
    if (!perExecutionUid && !executor.cgroupsLimitProcesses) {
      degraded.push(
        'the service does not run as root, so runs share its uid: the process-count limit (RLIMIT_NPROC) is not applied',
      );
    }
    if (base.network === 'host') degraded.push('network access is enabled by configuration');
    const missing = Object.entries(seen.packages).filter(([, version]) => version.startsWith('missing'));
    if (missing.length > 0)
      degraded.push(`python packages missing: ${missing.map(([name]) => name).join(', ')}`);
    return {
      status: degraded.length > 0 ? 'degraded' : 'ok',
      ...(degraded.length > 0 ? { reason: degraded.join('; ') } : {}),
      sandbox: true,
      ...base,
      bubblewrap,
      python: { path: executor.options.pythonPath, version: seen.version, packages: seen.packages },
      probe,
    };
  }
}

/** What the probe run inside the sandbox reports. */
interface ProbeSeen {
  readonly uid: number;
  readonly pid: number;
  readonly interfaces: string[];
  readonly usr_writable: boolean;
  readonly root_writable: boolean;
  readonly version: string;
  readonly packages: Record<string, string>;
}

/** Probe runs of this process that proved a sandbox isolated, by the settings that shape it. */
const probedSandboxes = new Map<string, { readonly seen: ProbeSeen; readonly at: string }>();

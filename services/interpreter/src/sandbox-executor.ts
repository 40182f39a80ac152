import { randomUUID } from 'node:crypto';
import { chmod, chown, lstat, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { omitUndefined } from '@toolbus/spec';
import { HttpError } from './http-error.ts';
import type { InterpreterLimits } from './interpreter-limits.ts';
import { pythonRunnerSource } from './python-runner-source.ts';
import { type RunCgroup, RunCgroups, type RunCgroupsState } from './run-cgroups.ts';
import { type OutputStreamName, runInSandbox, type SandboxRunResult } from './run-in-sandbox.ts';
import { buildSandboxCommand, type SandboxBind } from './sandbox-command.ts';
import { egressForwarderSource, egressRunParts, type SandboxEgressProvider } from './sandbox-egress.ts';
import { managedWorkspaceFolder, type SkillMount } from './skills-directory.ts';
import { compileSyscallFilter, type SyscallFilterState } from './syscall-filter.ts';
import type { UidAllocator } from './uid-allocator.ts';
import {
  hashFile,
  listWorkspaceFiles,
  type StagedFile,
  stageWorkspaceFiles,
  type WorkspaceFile,
} from './workspace-files.ts';
import { mountPointsUnder, mountWorkspaceQuota, unmountWorkspaceQuota } from './workspace-quota.ts';

/** Options for {@link SandboxExecutor}. */
export interface SandboxExecutorOptions {
  readonly workRoot: string;
  readonly bubblewrapPath: string;
  readonly pythonPath: string;
  readonly limits: InterpreterLimits;
  /** Present when the service runs as root: every run gets a host uid of its own. */
  readonly uids?: UidAllocator;
  readonly shareNetwork?: boolean;
  /** Give runs the seccomp filter (default true). Off only to measure its cost or on a kernel without seccomp. */
  readonly syscallFilter?: boolean;
  /** Give each run and session a cgroup of its own when the service may create them (default true). */
  readonly cgroups?: boolean;
  /** Where the host's /proc and cgroup mounts are seen (default `/`; see `RunCgroupsOpenOptions.hostRoot`). */
  readonly cgroupHostRoot?: string;
  /** Gives every run network through the egress proxy (a run's own `egress` takes precedence). */
  readonly egress?: SandboxEgressProvider;
}

/** Whether workspaces have a size limit: not tried yet, in place, or impossible here (with the reason). */
export type WorkspaceQuotaState =
  | { readonly state: 'untried' | 'active' }
  | { readonly state: 'failed'; readonly reason: string };

/** A private workspace directory and the uid that owns it, for one execution or one session. */
export interface SandboxWorkspace {
  readonly directory: string;
  readonly workspaceDirectory: string;
  readonly uid?: number;
  readonly stagedHashes: Map<string, string>;
  /** The group every run in this workspace joins (absent when cgroups are off). */
  readonly cgroup?: RunCgroup;
}

/** A workspace file a run created or changed. */
export type ChangedFile = WorkspaceFile & { readonly kind: 'created' | 'modified' };

/** What a run changed, and what the bounded listing could not look at (in words for the model). */
export interface ChangedFiles {
  readonly files: readonly ChangedFile[];
  readonly notes: readonly string[];
}

/** Options for one run of a command in a workspace. */
export interface SandboxCommandRun {
  readonly workspace: SandboxWorkspace;
  readonly command: readonly string[];
  readonly timeoutMs: number;
  readonly stdin?: string;
  /** Host files copied in read-only (see `SandboxCommandOptions.readOnlyFiles`). */
  readonly readOnlyFiles?: readonly SandboxBind[];
  /** Host paths bound read-only (see `SandboxCommandOptions.readOnlyBinds`): the egress socket. */
  readonly readOnlyBinds?: readonly SandboxBind[];
  /** Skills to bind read-only at /workspace/managed/skills/<name>. */
  readonly skills?: readonly SkillMount[];
  readonly onOutput?: (stream: OutputStreamName, data: string) => void;
  readonly signal?: AbortSignal;
  /** Network through the egress proxy: a socket of this run's own, the network namespace still unshared. */
  readonly egress?: SandboxEgressProvider;
  /** What the run is for (the client's `x-toolbus-egress-tag`), handed to the egress provider as is. */
  readonly egressTag?: string;
  /** The run's signed egress token (the client's `x-toolbus-egress-token`), for the provider only: never logged. */
  readonly egressToken?: string;
}

/**
 * Creates private workspaces and runs commands in them under bubblewrap. Each workspace is a fresh directory
 * (mode 0700, owned by the run's uid when the service is root) under `<workRoot>/runs`, bound at /workspace.
 */
export class SandboxExecutor {
  readonly options: SandboxExecutorOptions;
  readonly #runsDirectory: string;
  readonly #runnerPath: string;
  readonly #forwarderPath: string;
  #quota: WorkspaceQuotaState = { state: 'untried' };
  #syscallFilter: SyscallFilterState = { state: 'off', reason: 'not compiled yet' };
  #cgroups: RunCgroups | undefined;
  // Bytes of workspace storage promised to live workspaces: their tmpfs sizes live in memory, so their sum is bounded.
  #reservedWorkspaceBytes = 0;

  constructor(options: SandboxExecutorOptions) {
    this.options = options;
    this.#runsDirectory = join(options.workRoot, 'runs');
    this.#runnerPath = join(options.workRoot, 'runner.py');
    this.#forwarderPath = join(options.workRoot, 'egress-forwarder.py');
  }

  /** Prepares the work root: the runner script and an empty runs directory (leftovers of a crash are removed). */
  async open(): Promise<void> {
    await mkdir(this.options.workRoot, { recursive: true, mode: 0o711 });
    await chmod(this.options.workRoot, 0o711);
    for (const mountPoint of await mountPointsUnder(this.#runsDirectory))
      await unmountWorkspaceQuota(mountPoint);
    await rm(this.#runsDirectory, { recursive: true, force: true });
    await mkdir(this.#runsDirectory, { mode: 0o711 });
    await writeFile(this.#runnerPath, pythonRunnerSource, { mode: 0o644 });
    await chmod(this.#runnerPath, 0o644);
    await writeFile(this.#forwarderPath, egressForwarderSource, { mode: 0o644 });
    await chmod(this.#forwarderPath, 0o644);
    this.#syscallFilter =
      this.options.syscallFilter === false
        ? { state: 'off', reason: 'no seccomp filter: disabled by configuration' }
        : await compileSyscallFilter({
            pythonPath: this.options.pythonPath,
            target: join(this.options.workRoot, 'seccomp.bpf'),
          });
    this.#cgroups = await RunCgroups.open({
      enabled: this.options.cgroups !== false,
      processesLimitedByUid: this.options.uids !== undefined,
      ...omitUndefined({ hostRoot: this.options.cgroupHostRoot }),
    });
  }

  /** Removes what `open` created outside the work root (the service's cgroups). */
  async close(): Promise<void> {
    await this.#cgroups?.close();
  }

  /** Whether runs have the seccomp filter. */
  get syscallFilter(): SyscallFilterState {
    return this.#syscallFilter;
  }

  /** Whether runs have cgroups of their own (and which version). */
  get cgroups(): RunCgroupsState {
    return this.#cgroups?.state ?? { state: 'off', reason: 'not opened yet' };
  }

  /** The service's own cgroup directories (see {@link RunCgroups.serviceDirectories}). */
  get cgroupDirectories(): readonly string[] {
    return this.#cgroups?.serviceDirectories ?? [];
  }

  /** Whether a cgroup limits each run's process count. */
  get cgroupsLimitProcesses(): boolean {
    return this.#cgroups?.limitsProcesses ?? false;
  }

  /** A fresh workspace with `files` staged in it. */
  async createWorkspace(files: readonly StagedFile[] = []): Promise<SandboxWorkspace> {
    const { workspaceBytes, totalWorkspaceBytes } = this.options.limits;
    if (this.#reservedWorkspaceBytes + workspaceBytes > totalWorkspaceBytes) {
      throw new HttpError({
        status: 503,
        code: 'workspace_capacity',
        message: `the service holds its maximum of workspace storage (${totalWorkspaceBytes} bytes across runs and sessions); end a session or retry later`,
      });
    }
    this.#reservedWorkspaceBytes += workspaceBytes;
    const directory = join(this.#runsDirectory, randomUUID());
    const workspaceDirectory = join(directory, 'workspace');
    let uid: number | undefined;
    let cgroup: RunCgroup | undefined;
    try {
      await mkdir(workspaceDirectory, { recursive: true, mode: 0o700 });
      uid = this.options.uids?.acquire();
      cgroup = await this.#cgroups?.acquire({
        memoryBytes: this.options.limits.runMemoryBytes,
        maxProcesses: this.options.limits.maxProcesses,
      });
      if (uid !== undefined) {
        await chown(directory, uid, uid);
        await chown(workspaceDirectory, uid, uid);
        await this.#limitWorkspaceSize(workspaceDirectory, uid);
      }
      await chmod(directory, 0o700);
      const stagedHashes = await stageWorkspaceFiles({
        workspaceDirectory,
        files,
        ...omitUndefined({ ownerUid: uid }),
      });
      return {
        directory,
        workspaceDirectory,
        stagedHashes,
        ...omitUndefined({ uid, cgroup }),
      };
    } catch (error) {
      await this.removeWorkspace({
        directory,
        workspaceDirectory,
        stagedHashes: new Map(),
        ...omitUndefined({ uid, cgroup }),
      });
      throw error;
    }
  }

  /** Deletes a workspace and frees its uid. Its processes are already gone (each run's pid namespace died). */
  async removeWorkspace(workspace: SandboxWorkspace): Promise<void> {
    if (this.#quota.state === 'active') await unmountWorkspaceQuota(workspace.workspaceDirectory);
    await rm(workspace.directory, { recursive: true, force: true });
    // After the unmount, so the tmpfs pages the group was charged for are gone with it.
    if (workspace.cgroup !== undefined) await this.#cgroups?.release(workspace.cgroup);
    if (workspace.uid !== undefined) this.options.uids?.release(workspace.uid);
    this.#reservedWorkspaceBytes -= this.options.limits.workspaceBytes;
  }

  /** Whether workspaces are size-limited (decided by the first workspace created). */
  get workspaceQuota(): WorkspaceQuotaState {
    return this.#quota;
  }

  async #limitWorkspaceSize(directory: string, uid: number): Promise<void> {
    if (this.#quota.state === 'failed') return;
    try {
      await mountWorkspaceQuota({ directory, bytes: this.options.limits.workspaceBytes, uid });
      this.#quota = { state: 'active' };
    } catch (error) {
      // Once failed (no CAP_SYS_ADMIN here), it would fail for every run: stop trying and report it on /health.
      if (this.#quota.state === 'active') throw error;
      const detail =
        error instanceof Error
          ? (error as Error & { stderr?: string }).stderr || error.message
          : String(error);
      this.#quota = {
        state: 'failed',
        reason: `cannot mount a size-limited tmpfs on workspaces: ${detail.trim()}`,
      };
    }
  }

  /** Runs Python code (bound read-only at /sandbox/main.py) in the workspace. */
  async runPython(
    options: Omit<SandboxCommandRun, 'command' | 'readOnlyFiles'> & { code: string },
  ): Promise<SandboxRunResult> {
    const codePath = join(options.workspace.directory, 'main.py');
    await writeFile(codePath, options.code, { mode: 0o644 });
    const { code: _code, ...run } = options;
    return this.run({
      ...run,
      command: [this.options.pythonPath, '/sandbox/runner.py'],
      readOnlyFiles: [
        { source: this.#runnerPath, target: '/sandbox/runner.py' },
        { source: codePath, target: '/sandbox/main.py' },
      ],
    });
  }

  /** Runs any command in the workspace with the service's limits. */
  async run(options: SandboxCommandRun): Promise<SandboxRunResult> {
    const provider = options.egress ?? this.options.egress;
    if (provider === undefined) return this.#run(options);
    const lease = await provider.open({
      runId: randomUUID(),
      ...omitUndefined({ tag: options.egressTag, token: options.egressToken }),
    });
    if (lease === undefined) {
      const { egress: _egress, egressTag: _egressTag, egressToken: _egressToken, ...bare } = options;
      return this.#run(bare);
    }
    try {
      const parts = egressRunParts({
        lease,
        forwarderPath: this.#forwarderPath,
        pythonPath: this.options.pythonPath,
        command: options.command,
      });
      const { egress: _egress, egressTag: _egressTag, egressToken: _egressToken, ...rest } = options;
      return await this.#run({
        ...rest,
        command: parts.command,
        readOnlyFiles: [...(options.readOnlyFiles ?? []), ...parts.readOnlyFiles],
        readOnlyBinds: [...(options.readOnlyBinds ?? []), ...parts.readOnlyBinds],
      });
    } finally {
      await lease.close();
    }
  }

  async #run(options: SandboxCommandRun): Promise<SandboxRunResult> {
    const limits = this.options.limits;
    const skills = options.skills ?? [];
    if (skills.length > 0) await this.#clearManagedFolder(options.workspace);
    const filter = this.#syscallFilter;
    const command = buildSandboxCommand({
      bubblewrapPath: this.options.bubblewrapPath,
      workspaceDirectory: options.workspace.workspaceDirectory,
      command: options.command,
      readOnlyFiles: options.readOnlyFiles ?? [],
      readOnlyBinds: options.readOnlyBinds ?? [],
      ...(filter.state === 'active' ? { syscallFilterPath: filter.path } : {}),
      ...omitUndefined({ cgroupProcsFiles: options.workspace.cgroup?.procsFiles }),
      skills,
      cpuSeconds: Math.min(limits.cpuSeconds, Math.ceil(options.timeoutMs / 1000) + 1),
      memoryBytes: limits.memoryBytes,
      maxProcesses: limits.maxProcesses,
      maxFileBytes: limits.maxFileBytes,
      tmpBytes: limits.tmpBytes,
      ...omitUndefined({ hostUid: options.workspace.uid }),
      ...(this.options.shareNetwork === true ? { shareNetwork: true } : {}),
    });
    return runInSandbox({
      argv: command.argv,
      inheritedFiles: command.inheritedFiles,
      timeoutMs: options.timeoutMs,
      maxOutputBytes: limits.maxOutputBytes,
      ...omitUndefined({ stdin: options.stdin, onOutput: options.onOutput, signal: options.signal }),
    });
  }

  /**
   * bubblewrap mounts the skills over `<workspace>/managed`, resolving that path as it goes. A session's earlier
   * command may have left a symlink (or a file) there; remove it, so the mount lands where it should. No process of
   * the session is alive between commands (each run's pid namespace died), so nothing can race this.
   */
  async #clearManagedFolder(workspace: SandboxWorkspace): Promise<void> {
    const path = join(workspace.workspaceDirectory, managedWorkspaceFolder);
    const info = await lstat(path).catch(() => undefined);
    if (info !== undefined && !info.isDirectory()) await rm(path, { force: true });
  }

  /** Files in the workspace that are new or whose content differs from what was staged, and notes on what the
   * bounded listing left out. */
  async changedFiles(workspace: SandboxWorkspace): Promise<ChangedFiles> {
    const limits = this.options.limits;
    const listing = await listWorkspaceFiles({
      workspaceDirectory: workspace.workspaceDirectory,
      maxFiles: limits.maxFilesPerExecution + workspace.stagedHashes.size,
      maxEntries: limits.maxListedEntries,
      maxDepth: 32,
      deadline: performance.now() + limits.maxListingMs,
    });
    const files: ChangedFile[] = [];
    for (const file of listing.files) {
      const stagedHash = workspace.stagedHashes.get(file.path);
      if (stagedHash === undefined) files.push({ ...file, kind: 'created' });
      else if ((await hashFile(file.absolutePath)) !== stagedHash) files.push({ ...file, kind: 'modified' });
      if (files.length >= limits.maxFilesPerExecution) break;
    }
    return { files, notes: listing.notes };
  }
}

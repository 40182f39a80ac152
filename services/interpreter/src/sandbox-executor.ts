import { randomUUID } from 'node:crypto';
import { chmod, chown, lstat, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { InterpreterLimits } from './interpreter-limits.ts';
import { pythonRunnerSource } from './python-runner-source.ts';
import { type OutputStreamName, runInSandbox, type SandboxRunResult } from './run-in-sandbox.ts';
import { buildSandboxCommand, type SandboxBind } from './sandbox-command.ts';
import { egressForwarderSource, egressRunParts, type SandboxEgressProvider } from './sandbox-egress.ts';
import { managedWorkspaceFolder, type SkillMount } from './skills-directory.ts';
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
}

/** Options for one run of a command in a workspace. */
export interface SandboxCommandRun {
  readonly workspace: SandboxWorkspace;
  readonly command: readonly string[];
  readonly timeoutMs: number;
  readonly stdin?: string;
  readonly readOnlyBinds?: readonly SandboxBind[];
  /** Skills to bind read-only at /workspace/managed/skills/<name>. */
  readonly skills?: readonly SkillMount[];
  readonly onOutput?: (stream: OutputStreamName, data: string) => void;
  readonly signal?: AbortSignal;
  /** Network through the egress proxy: a socket of this run's own, the network namespace still unshared. */
  readonly egress?: SandboxEgressProvider;
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
  }

  /** A fresh workspace with `files` staged in it. */
  async createWorkspace(files: readonly StagedFile[] = []): Promise<SandboxWorkspace> {
    const directory = join(this.#runsDirectory, randomUUID());
    const workspaceDirectory = join(directory, 'workspace');
    await mkdir(workspaceDirectory, { recursive: true, mode: 0o700 });
    const uid = this.options.uids?.acquire();
    try {
      if (uid !== undefined) {
        await chown(directory, uid, uid);
        await chown(workspaceDirectory, uid, uid);
        await this.#limitWorkspaceSize(workspaceDirectory, uid);
      }
      await chmod(directory, 0o700);
      const stagedHashes = await stageWorkspaceFiles({
        workspaceDirectory,
        files,
        ...(uid === undefined ? {} : { ownerUid: uid }),
      });
      return { directory, workspaceDirectory, stagedHashes, ...(uid === undefined ? {} : { uid }) };
    } catch (error) {
      await this.removeWorkspace({
        directory,
        workspaceDirectory,
        stagedHashes: new Map(),
        ...(uid === undefined ? {} : { uid }),
      });
      throw error;
    }
  }

  /** Deletes a workspace and frees its uid. Its processes are already gone (each run's pid namespace died). */
  async removeWorkspace(workspace: SandboxWorkspace): Promise<void> {
    if (this.#quota.state === 'active') await unmountWorkspaceQuota(workspace.workspaceDirectory);
    await rm(workspace.directory, { recursive: true, force: true });
    if (workspace.uid !== undefined) this.options.uids?.release(workspace.uid);
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
    options: Omit<SandboxCommandRun, 'command' | 'readOnlyBinds'> & { code: string },
  ): Promise<SandboxRunResult> {
    const codePath = join(options.workspace.directory, 'main.py');
    await writeFile(codePath, options.code, { mode: 0o644 });
    const { code: _code, ...run } = options;
    return this.run({
      ...run,
      command: [this.options.pythonPath, '/sandbox/runner.py'],
      readOnlyBinds: [
        { source: this.#runnerPath, target: '/sandbox/runner.py' },
        { source: codePath, target: '/sandbox/main.py' },
      ],
    });
  }

  /** Runs any command in the workspace with the service's limits. */
  async run(options: SandboxCommandRun): Promise<SandboxRunResult> {
    const provider = options.egress ?? this.options.egress;
    if (provider === undefined) return this.#run(options);
    const lease = await provider.open({ runId: randomUUID() });
    try {
      const parts = egressRunParts({
        lease,
        forwarderPath: this.#forwarderPath,
        pythonPath: this.options.pythonPath,
        command: options.command,
      });
      const { egress: _egress, ...rest } = options;
      return await this.#run({
        ...rest,
        command: parts.command,
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
    const argv = buildSandboxCommand({
      bubblewrapPath: this.options.bubblewrapPath,
      workspaceDirectory: options.workspace.workspaceDirectory,
      command: options.command,
      readOnlyBinds: options.readOnlyBinds ?? [],
      skills,
      cpuSeconds: Math.min(limits.cpuSeconds, Math.ceil(options.timeoutMs / 1000) + 1),
      memoryBytes: limits.memoryBytes,
      maxProcesses: limits.maxProcesses,
      maxFileBytes: limits.maxFileBytes,
      tmpBytes: limits.tmpBytes,
      ...(options.workspace.uid === undefined ? {} : { hostUid: options.workspace.uid }),
      ...(this.options.shareNetwork === true ? { shareNetwork: true } : {}),
    });
    return runInSandbox({
      argv,
      timeoutMs: options.timeoutMs,
      maxOutputBytes: limits.maxOutputBytes,
      ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
      ...(options.onOutput === undefined ? {} : { onOutput: options.onOutput }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
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

  /** Files in the workspace that are new or whose content differs from what was staged. */
  async changedFiles(
    workspace: SandboxWorkspace,
  ): Promise<Array<WorkspaceFile & { kind: 'created' | 'modified' }>> {
    const files = await listWorkspaceFiles({
      workspaceDirectory: workspace.workspaceDirectory,
      maxFiles: this.options.limits.maxFilesPerExecution + workspace.stagedHashes.size,
    });
    const changed: Array<WorkspaceFile & { kind: 'created' | 'modified' }> = [];
    for (const file of files) {
      const stagedHash = workspace.stagedHashes.get(file.path);
      if (stagedHash === undefined) changed.push({ ...file, kind: 'created' });
      else if ((await hashFile(file.absolutePath)) !== stagedHash)
        changed.push({ ...file, kind: 'modified' });
      if (changed.length >= this.options.limits.maxFilesPerExecution) break;
    }
    return changed;
  }
}

import { randomInt } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listenHttpServer, omitUndefined } from '@toolbus/spec';
import { ExecutionQueue } from './execution-queue.ts';
import { FileStore } from './file-store.ts';
import { HttpError } from './http-error.ts';
import { sendError } from './http-io.ts';
import { type InterpreterLimits, resolveInterpreterLimits } from './interpreter-limits.ts';
import { interpreterRoutes } from './interpreter-routes.ts';
import type { InterpreterService } from './interpreter-service.ts';
import { findExecutable, type IsolationReport, probeIsolation } from './probe-isolation.ts';
import { resolveRoute } from './route-table.ts';
import type { SandboxEgressProvider } from './sandbox-egress.ts';
import { SandboxExecutor } from './sandbox-executor.ts';
import { SessionRegistry } from './session-registry.ts';
import { SkillsDirectory } from './skills-directory.ts';
import { removeStaleCgroups } from './stale-cgroups.ts';
import { UidAllocator } from './uid-allocator.ts';
import { claimWorkRoot } from './work-root-claim.ts';
import { privateFolderAbove } from './work-root-reach.ts';

/** Options for {@link startInterpreterServer}. */
export interface InterpreterServerOptions {
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  /** Defaults to 127.0.0.1: the API has no authentication, so expose it only to the processes that use it. */
  readonly host?: string;
  /**
   * Where workspaces and stored files live. Defaults to a fresh temporary directory, removed at close. Give a
   * stable one in production: at start the service removes what a killed instance of the same work root left
   * (mounted workspaces, their folders, its cgroups), and it refuses a root whose owner still runs.
   */
  readonly workRoot?: string;
  readonly limits?: Partial<InterpreterLimits>;
  /** Defaults to Debian's CPython, /usr/bin/python3 (which has numpy, pandas and matplotlib from Debian). */
  readonly pythonPath?: string;
  /** Defaults to `bwrap` on PATH. */
  readonly bubblewrapPath?: string;
  /** Give sandboxes the host network. Off by default; /health reports it as degraded. */
  readonly allowNetwork?: boolean;
  /** Host uids for sandboxes when the service runs as root. Defaults to a random block of 4096 uids above one
   * million, so two services on one machine (tests run several) do not share uids and with them process limits. */
  readonly sandboxUids?: { readonly first: number; readonly count: number };
  /**
   * A host folder of materialised skills (one sub-folder per name, as `materializeSkills` of @toolbus/skills
   * writes them). Requests name the skills they want in `skills`; each is bound read-only at
   * `/workspace/managed/skills/<name>/`. Without it, any request naming a skill is refused.
   */
  readonly skillsRoot?: string;
  /** Give runs the seccomp filter (default true; /health reports it off). Off only to measure what it costs. */
  readonly syscallFilter?: boolean;
  /** Give each run and session a cgroup when the service may create them (default true; /health reports it). */
  readonly cgroups?: boolean;
  /**
   * Where the host's `/proc` and cgroup mounts are seen (default `/`): for a container that sees the host's at
   * another path, and for tests of a cgroup hierarchy the machine does not have.
   */
  readonly cgroupHostRoot?: string;
  /**
   * Network through the egress proxy for every run: each run gets a Unix socket of its own from the provider,
   * relayed inside the sandbox's own network namespace (which stays unshared). Absent: no network at all.
   */
  readonly egress?: SandboxEgressProvider;
  /** Receives start-up and error lines (never request contents). */
  readonly onLog?: (line: string) => void;
}

/** A running interpreter service. */
export interface InterpreterServer {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  readonly url: string;
  /** What the start-up probe found (also served on /health). */
  readonly isolation: IsolationReport;
  close(): Promise<void>;
}

function randomUidBlock(): { first: number; count: number } {
  const count = 4096;
  // Blocks between 2^20 and 2^31: far above any real account, below the 32-bit overflow id space.
  return { first: 2 ** 20 + randomInt(0, (2 ** 31 - 2 ** 20) / count - 1) * count, count };
}

/**
 * Starts the code-execution service (HTTP on loopback by default). It probes the sandbox first: when bubblewrap
 * cannot isolate on this machine, it still starts, `/health` says why, and executions are refused with 503.
 * This function only wires the parts; the API is the table in `interpreter-routes.ts`.
 */
export async function startInterpreterServer(
  options: InterpreterServerOptions = {},
): Promise<InterpreterServer> {
  const log = options.onLog ?? (() => {});
  const limits = resolveInterpreterLimits(options.limits);
  const isRoot = process.getuid?.() === 0;
  // Checked before anything is created, so a wrong skills root leaves nothing behind.
  const skillsDirectory =
    options.skillsRoot === undefined
      ? undefined
      : await SkillsDirectory.open({ root: options.skillsRoot, sandboxesRunAsOtherUsers: isRoot });
  const ownsWorkRoot = options.workRoot === undefined;
  const workRoot = options.workRoot ?? (await mkdtemp(join(tmpdir(), 'toolbus-interpreter-')));
  if (isRoot) {
    const closed = await privateFolderAbove(workRoot);
    if (closed !== undefined) {
      throw new Error(
        `the work root ${workRoot} cannot be reached by the sandbox users: ${closed} is private to its owner; choose a work root whose parent folders others may traverse (o+x), e.g. /var/lib/toolbus/sandbox`,
      );
    }
  }
  const claim = await claimWorkRoot(workRoot);
  // Before this instance makes its own: a killed instance's groups (and any run still in them) go first.
  const staleCgroups = await removeStaleCgroups(claim.staleCgroups);
  const removed = claim.staleCgroups.length - staleCgroups.length;
  if (removed > 0) log(`interpreter: removed ${removed} cgroup(s) a stopped instance left behind`);
  const executor = new SandboxExecutor({
    workRoot,
    bubblewrapPath: options.bubblewrapPath ?? (await findExecutable('bwrap')) ?? '/usr/bin/bwrap',
    pythonPath: options.pythonPath ?? '/usr/bin/python3',
    limits,
    ...(isRoot ? { uids: new UidAllocator(options.sandboxUids ?? randomUidBlock()) } : {}),
    ...(options.allowNetwork === true ? { shareNetwork: true } : {}),
    ...omitUndefined({
      syscallFilter: options.syscallFilter,
      cgroups: options.cgroups,
      cgroupHostRoot: options.cgroupHostRoot,
      egress: options.egress,
    }),
  });
  // Sweeps the workspaces (and their tmpfs mounts) a killed instance left in the work root.
  await executor.open();
  await claim.recordCgroups([...executor.cgroupDirectories, ...staleCgroups]);
  const files = new FileStore({
    directory: join(workRoot, 'files'),
    maxFileBytes: limits.maxFileBytes,
    maxTotalBytes: limits.fileStoreBytes,
    maxBytesPerOwner: limits.fileStoreBytesPerUser,
    ttlSeconds: limits.fileTtlSeconds,
  });
  await files.open();
  const isolation = await probeIsolation(executor);
  if (isolation.status === 'ok') log(`interpreter: sandbox ok (${isolation.bubblewrap ?? 'bwrap'})`);
  else log(`interpreter: sandbox ${isolation.status}: ${isolation.reason ?? ''}`);
  const service: InterpreterService = {
    limits,
    executor,
    files,
    sessions: new SessionRegistry({ executor, maxSessions: limits.maxSessions }),
    queue: new ExecutionQueue({ maxConcurrent: limits.maxConcurrent, maxQueued: limits.maxQueued }),
    isolation,
    skillsDirectory,
    log,
  };

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://interpreter');
    Promise.resolve()
      .then(() => {
        const { handler, params } = resolveRoute(interpreterRoutes, request, response, url);
        return handler({ service, request, response, url, params });
      })
      .catch((error: unknown) => {
        if (!(error instanceof HttpError)) {
          log(
            `interpreter: ${request.method} ${url.pathname} failed: ${error instanceof Error ? error.stack : String(error)}`,
          );
        }
        // Drain what the client still sends, so it reads our answer instead of a reset connection.
        request.resume();
        sendError(response, error);
      });
  });
  const url = await listenHttpServer(server, options);
  return {
    url,
    isolation,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await service.sessions.close();
      await executor.close();
      files.close();
      await claim.release();
      if (ownsWorkRoot) await rm(workRoot, { recursive: true, force: true });
    },
  };
}

import { availableParallelism } from 'node:os';

/** Every limit the service enforces. Sizes are bytes, times milliseconds unless the name says otherwise. */
export interface InterpreterLimits {
  /** Largest `timeout_ms` a request may ask for. */
  readonly maxTimeoutMs: number;
  /** Wall-clock limit when a request gives none. */
  readonly defaultTimeoutMs: number;
  /** CPU seconds per process (RLIMIT_CPU); the wall clock usually ends a run first. */
  readonly cpuSeconds: number;
  /** Address space per process (RLIMIT_AS). numpy and pandas need a few hundred MiB of it just to import. */
  readonly memoryBytes: number;
  /** Processes and threads of one execution (RLIMIT_NPROC, enforced when each execution has its own uid). */
  readonly maxProcesses: number;
  /** Largest file a run may write (RLIMIT_FSIZE), and the largest upload. */
  readonly maxFileBytes: number;
  /** Bytes kept per output stream; the rest is dropped and a note appended. */
  readonly maxOutputBytes: number;
  /** Size of the private /tmp of each run. */
  readonly tmpBytes: number;
  /** Total size of a workspace (inputs and outputs), enforced with a tmpfs when the service runs as root. */
  readonly workspaceBytes: number;
  /** Memory of one run (or session) as a whole: all its processes together plus the tmpfs pages they write
   * (workspace, /tmp, /dev/shm). Enforced by a cgroup when the service may create them. */
  readonly runMemoryBytes: number;
  /** The sum of `workspaceBytes` over every live workspace (runs and sessions): the tmpfs the service may hold. */
  readonly totalWorkspaceBytes: number;
  readonly maxCodeBytes: number;
  readonly maxStdinBytes: number;
  /** Input files per execution, and files returned from one. */
  readonly maxFilesPerExecution: number;
  /** Bytes of output files collected from one run, counted as copied (a sparse file counts at its full size). */
  readonly maxCollectedBytes: number;
  /** Entries of every kind (files, folders, links) the post-run listing reads before it stops. */
  readonly maxListedEntries: number;
  /** Wall-clock time the post-run listing may take. */
  readonly maxListingMs: number;
  /** Bytes the file store holds in total (uploads and outputs). */
  readonly fileStoreBytes: number;
  /** Bytes the file store holds for one user (named by the `x-toolbus-user` request header). */
  readonly fileStoreBytesPerUser: number;
  /** Executions (and session commands) running at once; more wait in a queue. */
  readonly maxConcurrent: number;
  /** Requests waiting for a slot; beyond this the service answers 503. */
  readonly maxQueued: number;
  readonly maxSessions: number;
  readonly maxSessionTtlSeconds: number;
  readonly defaultSessionTtlSeconds: number;
  /** Stored files (uploads and outputs) are deleted this long after they were stored. */
  readonly fileTtlSeconds: number;
}

/** The limits used when a caller overrides none. */
export const defaultInterpreterLimits: InterpreterLimits = {
  maxTimeoutMs: 60_000,
  defaultTimeoutMs: 30_000,
  cpuSeconds: 60,
  memoryBytes: 1024 * 1024 * 1024,
  maxProcesses: 64,
  maxFileBytes: 100 * 1024 * 1024,
  maxOutputBytes: 1024 * 1024,
  tmpBytes: 64 * 1024 * 1024,
  workspaceBytes: 1024 * 1024 * 1024,
  runMemoryBytes: 2 * 1024 * 1024 * 1024,
  totalWorkspaceBytes: 16 * 1024 * 1024 * 1024,
  maxCodeBytes: 1024 * 1024,
  maxStdinBytes: 1024 * 1024,
  maxFilesPerExecution: 100,
  maxCollectedBytes: 256 * 1024 * 1024,
  maxListedEntries: 20_000,
  maxListingMs: 2_000,
  fileStoreBytes: 8 * 1024 * 1024 * 1024,
  fileStoreBytesPerUser: 1024 * 1024 * 1024,
  maxConcurrent: availableParallelism(),
  maxQueued: 64,
  maxSessions: 16,
  maxSessionTtlSeconds: 6 * 3600,
  defaultSessionTtlSeconds: 900,
  fileTtlSeconds: 3600,
};

/** Fills the limits a caller left out with the defaults. */
export function resolveInterpreterLimits(overrides: Partial<InterpreterLimits> = {}): InterpreterLimits {
  const limits = { ...defaultInterpreterLimits, ...overrides };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new RangeError(`interpreter limit ${name} must be a positive integer, got ${String(value)}`);
    }
  }
  return limits;
}

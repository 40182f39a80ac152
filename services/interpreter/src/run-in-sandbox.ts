import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { CappedOutput } from './capped-output.ts';

/** Which stream a chunk of output came from. */
export type OutputStreamName = 'stdout' | 'stderr';

/** Options for {@link runInSandbox}. */
export interface RunInSandboxOptions {
  /** The full argv from `buildSandboxCommand`. */
  readonly argv: readonly string[];
  /** Host files opened read-only as descriptors 3, 4, ... of the process (`buildSandboxCommand` numbers them). */
  readonly inheritedFiles?: readonly string[];
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly stdin?: string;
  /** Called with each kept chunk as it arrives (for streaming). */
  readonly onOutput?: (stream: OutputStreamName, data: string) => void;
  /** Aborting kills the run (e.g. the client went away). */
  readonly signal?: AbortSignal;
}

/** What a sandboxed process did. */
export interface SandboxRunResult {
  readonly stdout: string;
  readonly stderr: string;
  /** Null when the run was killed by the wall clock or an abort. */
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  readonly durationMs: number;
}

/** The direct children of a process (Linux's /proc/PID/task/PID/children), empty when unreadable. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .split(' ')
      .filter((entry) => /^\d+$/.test(entry))
      .map(Number);
  } catch {
    return [];
  }
}

function spawnSandbox(
  program: string,
  args: readonly string[],
  descriptors: readonly number[],
): ChildProcessByStdio<Writable, Readable, Readable> {
  // The first three are pipes; node's typings cannot tell that from a spread of extra descriptors.
  return spawn(program, args, {
    stdio: ['pipe', 'pipe', 'pipe', ...descriptors],
    detached: true,
    env: { PATH: '/usr/bin:/bin' },
  }) as ChildProcessByStdio<Writable, Readable, Readable>;
}

/**
 * Runs a sandbox argv with a wall-clock limit. The kill takes the whole tree: SIGKILL to the pid namespace's init
 * (the command, bwrap's child), which makes the kernel kill every process left in the namespace; bwrap then reaps it
 * and exits. Should bwrap not exit, its process group gets SIGKILL too (--die-with-parent ends the rest).
 */
export function runInSandbox(options: RunInSandboxOptions): Promise<SandboxRunResult> {
  const started = performance.now();
  const [program, ...args] = options.argv;
  if (program === undefined) throw new TypeError('runInSandbox: empty argv');
  return new Promise((resolve, reject) => {
    const descriptors: number[] = [];
    let child: ReturnType<typeof spawnSandbox>;
    try {
      for (const path of options.inheritedFiles ?? []) descriptors.push(openSync(path, 'r'));
      child = spawnSandbox(program, args, descriptors);
    } finally {
      // The child has its own copies now; ours would only leak.
      for (const descriptor of descriptors) closeSync(descriptor);
    }
    const stdout = new CappedOutput(options.maxOutputBytes);
    const stderr = new CappedOutput(options.maxOutputBytes);
    let timedOut = false;
    let killed = false;
    let fallback: NodeJS.Timeout | undefined;
    const killGroup = (): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const kill = (): void => {
      if (killed || child.pid === undefined) return;
      killed = true;
      // Kill the namespace's init (bwrap's child): the kernel then kills the whole namespace, and bwrap reaps its
      // child and exits. Killing bwrap first would orphan that child to the service, which may be pid 1.
      const inits = childrenOf(child.pid);
      for (const pid of inits) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {}
      }
      if (inits.length === 0) killGroup();
      else fallback = setTimeout(killGroup, 2000);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs);
    const onAbort = (): void => kill();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) kill();

    child.stdout.on('data', (chunk: Buffer) => {
      const text = stdout.push(chunk);
      if (text) options.onOutput?.('stdout', text);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      const text = stderr.push(chunk);
      if (text) options.onOutput?.('stderr', text);
    });
    // The code may exit without reading its stdin; a broken pipe there is not an error of ours.
    child.stdin.on('error', () => {});
    child.stdin.end(options.stdin ?? '');

    child.on('error', (error) => {
      clearTimeout(timer);
      clearTimeout(fallback);
      options.signal?.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      clearTimeout(fallback);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({
        stdout: stdout.text(),
        stderr: stderr.text(),
        exitCode: killed ? null : code,
        timedOut,
        durationMs: Math.round(performance.now() - started),
      });
    });
  });
}

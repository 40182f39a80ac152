import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { constants } from 'node:os';
import { setTimeout as wait } from 'node:timers/promises';
import { omitUndefined } from '@toolbus/spec';

const entry = new URL('../cli-entry.ts', import.meta.url).pathname;

/** What a spawned `toolbus` printed and how it exited. */
export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

// The one way these fixtures start the CLI: from source, with only `env` (plus PATH, and HOME at TOOLBUS_HOME).
function spawnCliChild(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  options: { readonly cwd?: string },
): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ['--conditions=development', entry, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: env.TOOLBUS_HOME ?? '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
    ...omitUndefined({ cwd: options.cwd }),
  });
}

/** Runs the real CLI from source in a child process, with only `env` (plus PATH) in its environment. */
export function spawnCli(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  options: { readonly input?: string; readonly cwd?: string } = {},
): Promise<CliRun> {
  const child = spawnCliChild(args, env, options);
  child.stdin.end(options.input ?? '');
  return outputOf(child);
}

/** Everything a child process prints, and its exit code, once it has closed. */
export function outputOf(child: ChildProcessWithoutNullStreams): Promise<CliRun> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The path of the CLI's source entry, for drivers that spawn it themselves (a pseudo-terminal). */
export const cliEntry: string = entry;

/** A CLI process still running: what it printed so far, a wait for a text, a signal, its exit. */
export interface RunningCli {
  readonly child: ChildProcessWithoutNullStreams;
  output(): { readonly stdout: string; readonly stderr: string };
  /** Resolves once stdout holds `text` (rejects when the process exits first). */
  waitForOutput(text: string): Promise<void>;
  /** Resolves with the first group of `pattern` (else the whole match) once stdout matches it (a URL, a key). */
  waitForMatch(pattern: RegExp): Promise<string>;
  /** {@link RunningCli.waitForMatch} on stderr (progress, notes). */
  waitForStderrMatch(pattern: RegExp): Promise<string>;
  /** The exit code, or 128 + the signal's number when a signal ended it (as a shell reports it). */
  readonly exited: Promise<number>;
}

/** Every CLI {@link startCli} started, so a test file's `after(killStartedClis)` leaves none running. */
const started = new Set<ChildProcessWithoutNullStreams>();

/** Kills (SIGKILL) every CLI {@link startCli} started that still runs: for a test file's `after`. */
export function killStartedClis(): void {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  started.clear();
}

/** Starts the real CLI from source like {@link spawnCli}, for tests that act while it runs (Ctrl-C, a pipe). */
export function startCli(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  options: { readonly input?: string; readonly cwd?: string } = {},
): RunningCli {
  const child = spawnCliChild(args, env, options);
  started.add(child);
  let stdout = '';
  let stderr = '';
  // A waiter reads the whole stream so far: what it waits for may arrive split over chunks.
  const waiters: {
    stream: 'stdout' | 'stderr';
    find: (output: string) => string | undefined;
    what: string;
    resolve: (found: string) => void;
    reject: (error: Error) => void;
  }[] = [];
  const settle = () => {
    for (const waiter of [...waiters]) {
      const found = waiter.find(waiter.stream === 'stdout' ? stdout : stderr);
      if (found === undefined) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(found);
    }
  };
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
    settle();
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    settle();
  });
  child.stdin.end(options.input ?? '');
  let closed = false;
  const exitedBefore = (what: string) => new Error(`the CLI exited before printing ${what}: ${stdout}${stderr}`);
  const exited = new Promise<number>((resolve) => {
    child.on('close', (code, signal) => {
      closed = true;
      for (const waiter of waiters.splice(0)) waiter.reject(exitedBefore(waiter.what));
      resolve(code ?? 128 + (signal === null ? 0 : (constants.signals[signal] ?? 0)));
    });
  });
  const waitFor = (
    what: string,
    find: (output: string) => string | undefined,
    stream: 'stdout' | 'stderr' = 'stdout',
  ): Promise<string> => {
    const found = find(stream === 'stdout' ? stdout : stderr);
    if (found !== undefined) return Promise.resolve(found);
    if (closed) return Promise.reject(exitedBefore(what));
    return new Promise((resolve, reject) => {
      waiters.push({ stream, find, what, resolve, reject });
    });
  };
  const matchOf = (pattern: RegExp) => (output: string) => {
    const match = pattern.exec(output);
    return match ? (match[1] ?? match[0]) : undefined;
  };
  return {
    child,
    output: () => ({ stdout, stderr }),
    waitForOutput: async (text) => {
      await waitFor(`"${text}"`, (output) => (output.includes(text) ? text : undefined));
    },
    waitForMatch: (pattern) => waitFor(String(pattern), matchOf(pattern)),
    waitForStderrMatch: (pattern) => waitFor(`${pattern} on stderr`, matchOf(pattern), 'stderr'),
    exited,
  };
}

/** Whether `signal` is pending for process `pid` (sent, not yet taken by a thread of it), as /proc tells. */
async function signalPending(pid: number, signal: NodeJS.Signals): Promise<boolean> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const bit = 1n << BigInt(constants.signals[signal] - 1);
  const masks = [...status.matchAll(/^(?:SigPnd|ShdPnd):\s*([0-9a-f]+)$/gm)].map((m) => BigInt(`0x${m[1]}`));
  return masks.some((mask) => (mask & bit) !== 0n);
}

/**
 * Sends `signal` and resolves once the process has taken it (it is no longer pending in /proc): a second signal
 * sent sooner may be merged with the first by the kernel, and the process would see one.
 */
export async function sendSignal(run: RunningCli, signal: 'SIGINT' | 'SIGTERM'): Promise<void> {
  // No signal to a process that is gone (its pid may be another's by now).
  if (run.child.pid === undefined || !run.child.kill(signal)) return;
  while (await signalPending(run.child.pid, signal)) await wait(5);
}

/**
 * Sends `signals` (of different kinds: two of one kind would be merged into one) while the process is stopped
 * (SIGSTOP), then lets it go on (SIGCONT): it takes them all before it runs again, so what the first starts (a
 * stop that would be over in a moment) cannot be over when the next is handled. Which one it takes first is the
 * kernel's choice (each thread of the process may take one).
 */
export async function sendSignalsTogether(
  run: RunningCli,
  signals: readonly ('SIGINT' | 'SIGTERM')[],
): Promise<void> {
  const pid = run.child.pid;
  if (pid === undefined || !run.child.kill('SIGSTOP')) return;
  // Stopped (state T) before they are sent: a running process could handle the first before the next comes.
  for (;;) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    if (stat === '' || stat.slice(stat.lastIndexOf(')') + 2).startsWith('T')) break;
    await wait(5);
  }
  for (const signal of signals) run.child.kill(signal);
  run.child.kill('SIGCONT');
}

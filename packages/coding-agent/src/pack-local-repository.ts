import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { omitUndefined } from '@toolbus/spec';
import { RepositoryError } from './coding-agent-error.ts';

/** What {@link packLocalRepository} wrote. */
export interface PackedLocalRepository {
  /** Bytes of the archive and the history bundle together. */
  readonly bytes: number;
  /** True when a history bundle was written (the folder is a git repository with at least one commit). */
  readonly history: boolean;
}

/** Runs a program and collects its stdout (small outputs only). */
async function output(command: string, args: readonly string[], cwd: string): Promise<Buffer | undefined> {
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  const [code] = (await once(child, 'close')) as [number | null];
  return code === 0 ? Buffer.concat(chunks) : undefined;
}

/** Runs a program whose stdout goes to `destination`, stopping it when the output passes `maxBytes`. */
export async function pipeTo(options: {
  command: string;
  args: readonly string[];
  cwd: string;
  stdin?: Buffer;
  destination: string;
  maxBytes: number;
  label: string;
  signal?: AbortSignal;
}): Promise<number> {
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    ...omitUndefined({ signal: options.signal }),
  });
  child.on('error', () => {});
  // A program that exits before it reads its input (`git bundle` never reads it; one that failed, or was killed
  // over the size limit) fails our write with EPIPE. Its exit status says what happened: the write error is not
  // news, and unhandled it would crash the process.
  child.stdin.on('error', () => {});
  child.stdin.end(options.stdin ?? Buffer.alloc(0));
  const file = createWriteStream(options.destination, { mode: 0o600 });
  let total = 0;
  let tooBig = false;
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < 2000) stderr += chunk.toString('utf8');
  });
  child.stdout.on('data', (chunk: Buffer) => {
    total += chunk.byteLength;
    if (total > options.maxBytes) {
      tooBig = true;
      child.kill('SIGKILL');
      return;
    }
    if (!file.write(chunk)) {
      child.stdout.pause();
      file.once('drain', () => child.stdout.resume());
    }
  });
  const [code] = (await once(child, 'close')) as [number | null];
  file.end();
  await once(file, 'close');
  if (options.signal?.aborted) throw options.signal.reason;
  if (tooBig) {
    throw new RepositoryError({
      code: 'repository_too_large',
      message: `The folder ${options.label} is too big: it passes the ${Math.round(options.maxBytes / 1024 / 1024)} MiB limit.`,
    });
  }
  if (code !== 0) {
    throw new RepositoryError({
      code: 'repository_unpack_failed',
      message: `Could not pack ${options.label}: ${options.command} failed (${stderr.trim().split('\n').at(-1) ?? code}).`,
    });
  }
  return total;
}

/**
 * Packs a folder on this machine for the sandbox: a `tar.gz` of its files (for a git repository, the tracked and
 * untracked-but-not-ignored files as they are now, uncommitted changes included, so build outputs and
 * dependencies stay out) and, when it has commits, a `git bundle` of HEAD's history, from which the sandbox
 * rebuilds `.git` (a worktree's `.git` is only a pointer file, so copying it would not work). Both count toward
 * `maxBytes`.
 */
export async function packLocalRepository(options: {
  readonly path: string;
  readonly archive: string;
  readonly bundle: string;
  readonly maxBytes: number;
  readonly signal?: AbortSignal;
}): Promise<PackedLocalRepository> {
  const top = (await output('git', ['rev-parse', '--show-toplevel'], options.path))?.toString('utf8').trim();
  const isRepository = top !== undefined && top !== '';
  const listing = isRepository
    ? await output('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], options.path)
    : undefined;
  const base = {
    cwd: options.path,
    label: options.path,
    ...omitUndefined({ signal: options.signal }),
  };
  // Deleted-but-tracked files are in the listing; --ignore-failed-read skips them instead of failing.
  const archiveBytes = await pipeTo({
    ...base,
    command: 'tar',
    args: listing
      ? ['-czf', '-', '--ignore-failed-read', '--no-recursion', '--null', '-T', '-']
      : ['-czf', '-', '--exclude=./.git', '.'],
    ...omitUndefined({ stdin: listing }),
    destination: options.archive,
    maxBytes: options.maxBytes,
  });
  const hasCommit =
    isRepository && (await output('git', ['rev-parse', '--verify', '-q', 'HEAD'], options.path));
  if (!hasCommit) return { bytes: archiveBytes, history: false };
  const bundleBytes = await pipeTo({
    ...base,
    command: 'git',
    args: ['bundle', 'create', '-q', '-', 'HEAD'],
    destination: options.bundle,
    maxBytes: options.maxBytes - archiveBytes,
  });
  return { bytes: archiveBytes + bundleBytes, history: true };
}

// Part of an earlier commit's tree, unpacked beside the worktree so a benchmark can run it next to the current code
// in one run (other processes on a shared machine change the speed of a run; neighbouring runs share it).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface CommitSnapshot {
  /** The commit, abbreviated to 12 characters. */
  readonly commit: string;
  /** The directory the paths were unpacked under (their paths in the repository kept). */
  readonly directory: string;
}

/**
 * Unpacks `path` (a folder of the repository) at `commit` with `git archive`, once per commit, path and worktree.
 * Outside the worktree (Node strips types only outside node_modules); a link to the worktree's node_modules makes
 * the snapshot's imports of workspace packages (`@toolbus/spec`, `@toolbus/core`) resolve to the current ones. One
 * directory per worktree: a directory shared between worktrees kept a link to a worktree since removed.
 */
export function unpackCommitSnapshot(options: {
  readonly commit: string;
  readonly path: string;
  /** A name for the temporary directory (`recovery`, `gateway`). */
  readonly label: string;
}): CommitSnapshot {
  const root = new URL('../../..', import.meta.url).pathname;
  const commit = execFileSync('git', ['rev-parse', '--short=12', options.commit], {
    cwd: root,
    encoding: 'utf8',
  }).trim();
  const worktree = createHash('sha256').update(root).digest('hex').slice(0, 8);
  const directory = join(tmpdir(), `toolbus-${options.label}-${commit}-${worktree}`);
  if (!existsSync(join(directory, options.path))) {
    mkdirSync(directory, { recursive: true });
    if (!existsSync(join(directory, 'node_modules')))
      symlinkSync(join(root, 'node_modules'), join(directory, 'node_modules'));
    const archive = execFileSync('git', ['archive', commit, options.path], {
      cwd: root,
      maxBuffer: 256 * 2 ** 20,
    });
    execFileSync('tar', ['-x', '-C', directory], { input: archive });
  }
  return { commit, directory };
}

import { openAsBlob } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GuardedFetch } from '@toolbus/core/node';
import type { CodeInterpreter, WorkspaceFileInput } from '@toolbus/sandbox';
import { omitUndefined } from '@toolbus/spec';
import { RepositoryError } from './coding-agent-error.ts';
import type { CodingAgentLimits } from './coding-agent-limits.ts';
import { downloadRepositoryArchive } from './download-repository-archive.ts';
import { packLocalRepository } from './pack-local-repository.ts';
import type { RepositoryHost } from './repository-host.ts';
import type { RepositorySource } from './repository-source.ts';

/** How much of the repository's history the sandbox has. */
export type RepositoryHistory = 'full' | 'snapshot' | 'none';

/** A sandbox session with the repository unpacked in its working directory. */
export interface RepositorySession {
  readonly sessionId: string;
  readonly history: RepositoryHistory;
  /** The top-level listing (`ls`) after unpacking. */
  readonly listing: string;
  /** Deletes the session (failures are reported to `onCleanupError`; the TTL reaps it otherwise). */
  close(): Promise<void>;
}

/** Options for {@link openRepositorySession}. */
export interface OpenRepositorySessionOptions {
  readonly client: CodeInterpreter;
  readonly source: RepositorySource;
  readonly fetch: GuardedFetch;
  readonly host: RepositoryHost;
  readonly token?: string;
  readonly limits: CodingAgentLimits;
  /** The session's lifetime: past it the service deletes it even if this process died. */
  readonly ttlSeconds: number;
  readonly signal?: AbortSignal;
  readonly onCleanupError?: (error: unknown) => void;
}

const archiveName = 'repo.tar.gz';
const bundleName = 'history.bundle';
// Commits made in the sandbox need an identity; nothing leaves it.
const gitIdentity = '-c user.name=toolbus -c user.email=toolbus@sandbox.invalid';

/**
 * The shell that turns the staged files into a repository, as separate commands: unpacking must succeed, the
 * history step is best effort with its own timeout (a huge repository still opens when `git add` would take too
 * long). A downloaded archive (as GitHub and `git archive` serve it: one top folder, no `.git`) is committed as one
 * snapshot commit whose message names the archive's commit id, so `git log`, `git grep` and `git ls-files` work
 * and say plainly that history is not included. A local folder gets its history from the bundle, with the index
 * reset to HEAD so `git status` and `git diff` show the uncommitted changes.
 */
const scripts = {
  commitId: `gzip -dc ${archiveName} | git get-tar-commit-id`,
  unpackRemote: `tar -xzf ${archiveName} --strip-components=1 && rm ${archiveName} && ls -A`,
  unpackLocal: `tar -xzf ${archiveName} && rm ${archiveName} && ls -A`,
  snapshot: (message: string) =>
    `git init -q && git add -A && git ${gitIdentity} commit -q --allow-empty -m '${message}' || { rm -rf .git; exit 1; }`,
  history: `{ git init -q && git fetch -q ${bundleName} HEAD && git reset -q FETCH_HEAD; } || { rm -rf .git; rm -f ${bundleName}; exit 1; }; rm -f ${bundleName}`,
};

/**
 * Makes a repository ready in a fresh sandbox session: downloads the archive through the guarded fetch (or packs
 * the local folder), uploads it, creates the session with it staged, and unpacks it inside. The session is
 * deleted again when anything after its creation fails; the caller closes it when the run ends.
 */
export async function openRepositorySession(
  options: OpenRepositorySessionOptions,
): Promise<RepositorySession> {
  const { client, source, limits, signal } = options;
  const folder = await mkdtemp(join(tmpdir(), 'toolbus-repository-'));
  const uploaded: string[] = [];
  try {
    const archive = join(folder, archiveName);
    const bundle = join(folder, bundleName);
    let history = false;
    if (source.kind === 'remote') {
      await downloadRepositoryArchive({
        fetch: options.fetch,
        host: options.host,
        owner: source.owner,
        repo: source.repo,
        limits,
        destination: archive,
        ...omitUndefined({ token: options.token, signal }),
      });
    } else {
      history = (
        await packLocalRepository({
          path: source.path,
          archive,
          bundle,
          maxBytes: limits.maxArchiveBytes,
          ...omitUndefined({ signal }),
        })
      ).history;
    }
    const staged: WorkspaceFileInput[] = [];
    for (const [name, path] of history
      ? [
          [archiveName, archive],
          [bundleName, bundle],
        ]
      : [[archiveName, archive]]) {
      const { file_id } = await client.uploadFile({
        filename: name as string,
        content: await openAsBlob(path as string),
        ...omitUndefined({ signal }),
      });
      uploaded.push(file_id);
      staged.push({ path: name as string, file_id });
    }
    const session = await client.createSession(
      { ttl_seconds: options.ttlSeconds, files: staged },
      omitUndefined({ signal }),
    );
    const close = async () => {
      await client
        .deleteSession(session.session_id)
        .catch((error: unknown) => options.onCleanupError?.(error));
    };
    try {
      const run = (command: string) =>
        client.runSessionCommand(
          session.session_id,
          { command, timeout_ms: limits.unpackTimeoutMs },
          omitUndefined({ signal }),
        );
      // Read before unpacking (the archive is removed then); only a commit id is kept, nothing else it printed.
      const commitId =
        source.kind === 'remote'
          ? /^[0-9a-f]{40,64}$/.exec((await run(scripts.commitId)).stdout.trim())?.[0]
          : undefined;
      const unpacked = await run(source.kind === 'remote' ? scripts.unpackRemote : scripts.unpackLocal);
      if (unpacked.exit_code !== 0) {
        throw new RepositoryError({
          code: 'repository_unpack_failed',
          message: unpacked.timed_out
            ? `Unpacking ${source.label} took longer than ${limits.unpackTimeoutMs / 1000} s.`
            : `Could not unpack ${source.label}: ${unpacked.stderr.trim().split('\n').at(-1) ?? 'unknown error'}`,
        });
      }
      let kept: RepositoryHistory = 'none';
      if (source.kind === 'remote') {
        // The label is owner/repo, checked against [A-Za-z0-9_.-]: safe inside single quotes.
        const message = `snapshot of ${source.label} at ${commitId ?? 'an unknown commit'} (downloaded as an archive: history not included)`;
        if ((await run(scripts.snapshot(message))).exit_code === 0) kept = 'snapshot';
      } else if (history && (await run(scripts.history)).exit_code === 0) {
        kept = 'full';
      }
      return { sessionId: session.session_id, history: kept, listing: unpacked.stdout.trim(), close };
    } catch (error) {
      await close();
      throw error;
    }
  } finally {
    // The session has its own copies; the stored uploads and the local files are not needed any more.
    for (const fileId of uploaded) client.deleteFile(fileId).catch(() => {});
    await rm(folder, { recursive: true, force: true });
  }
}

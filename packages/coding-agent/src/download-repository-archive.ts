import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { GuardedFetchError } from '@toolbus/core';
import type { GuardedFetch } from '@toolbus/core/node';
import { withinDeadline } from '@toolbus/spec';
import { RepositoryError } from './coding-agent-error.ts';
import type { CodingAgentLimits } from './coding-agent-limits.ts';
import { fillRepositoryUrl, type RepositoryHost } from './repository-host.ts';

/** Options for {@link downloadRepositoryArchive}. */
export interface DownloadRepositoryArchiveOptions {
  /** The guarded fetch: every connection (and every redirect hop) is checked against private addresses. */
  readonly fetch: GuardedFetch;
  readonly host: RepositoryHost;
  readonly owner: string;
  readonly repo: string;
  /** Tried only after the anonymous download failed; sent only to the host's token URL. */
  readonly token?: string;
  readonly limits: Pick<CodingAgentLimits, 'maxArchiveBytes' | 'connectTimeoutMs' | 'readTimeoutMs'>;
  /** The file the archive is written to (never held in memory whole). */
  readonly destination: string;
  readonly signal?: AbortSignal;
}

const mib = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;

function statusError(
  status: number,
  label: string,
  host: RepositoryHost,
  withToken: boolean,
): RepositoryError {
  if (status === 404) {
    return new RepositoryError({
      code: 'repository_not_found',
      message: `Repository ${label} was not found on ${host.name}${withToken ? '' : ' (a private repository needs a token, and none is configured)'}.`,
    });
  }
  if (status === 401) {
    return new RepositoryError({
      code: 'repository_unauthorized',
      message: `${host.name} refused the configured token for ${label} (401): it is invalid or expired.`,
    });
  }
  if (status === 403) {
    return new RepositoryError({
      code: 'repository_forbidden',
      message: `${host.name} does not allow access to ${label} (403)${withToken ? ' with the configured token' : ''}.`,
    });
  }
  if (status === 429) {
    return new RepositoryError({
      code: 'repository_rate_limited',
      message: `${host.name} is rate-limiting downloads (429); try again later.`,
    });
  }
  return new RepositoryError({
    code: 'repository_http',
    message: `${host.name} answered ${status} for the archive of ${label}.`,
  });
}

/**
 * Downloads a repository's `tar.gz` archive to `destination`: anonymously first; when that fails and a token is
 * configured, through the host's token URL (GitHub's API answers with a redirect to a signed archive URL, which
 * is then fetched without the token, so it never reaches another host). The body streams to disk and the
 * download stops as soon as it passes the size cap. Headers must arrive within the connect timeout, and the
 * body may not go silent for longer than the read timeout. Returns the archive's size.
 */
export async function downloadRepositoryArchive(options: DownloadRepositoryArchiveOptions): Promise<number> {
  const label = `${options.owner}/${options.repo}`;
  const anonymous = await request(
    options,
    fillRepositoryUrl(options.host.archiveUrl, options.owner, options.repo),
  );
  if (anonymous.ok) return save(options, anonymous, label);
  await anonymous.body?.cancel().catch(() => {});
  if (options.token === undefined || ![401, 403, 404].includes(anonymous.status)) {
    throw statusError(anonymous.status, label, options.host, false);
  }
  const tokenUrl = fillRepositoryUrl(
    options.host.tokenArchiveUrl ?? options.host.archiveUrl,
    options.owner,
    options.repo,
  );
  const scheme = options.host.tokenScheme === 'token' ? 'token' : 'Bearer';
  const withToken = await request(options, tokenUrl, {
    authorization: `${scheme} ${options.token}`,
  });
  if (withToken.status >= 300 && withToken.status < 400) {
    await withToken.body?.cancel().catch(() => {});
    const location = withToken.headers.get('location');
    if (!location) throw statusError(withToken.status, label, options.host, true);
    // The redirect target is fetched with no credentials at all, whatever host it names.
    const archive = await request(options, new URL(location, tokenUrl));
    if (archive.ok) return save(options, archive, label);
    await archive.body?.cancel().catch(() => {});
    throw statusError(archive.status, label, options.host, true);
  }
  if (withToken.ok) return save(options, withToken, label);
  await withToken.body?.cancel().catch(() => {});
  throw statusError(withToken.status, label, options.host, true);
}

async function request(
  options: DownloadRepositoryArchiveOptions,
  url: URL,
  headers: Record<string, string> = {},
): Promise<Response> {
  const connect = AbortSignal.timeout(options.limits.connectTimeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, connect]) : connect;
  try {
    // Redirects are followed by hand only on the token path; an anonymous archive URL may redirect freely
    // (the guarded fetch checks every hop).
    return await options.fetch(url, {
      headers: { accept: 'application/x-gzip, application/octet-stream, */*', ...headers },
      redirect: headers.authorization === undefined ? 'follow' : 'manual',
      signal,
    });
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (connect.aborted) {
      throw new RepositoryError({
        code: 'repository_timeout',
        message: `${url.host} did not answer within ${options.limits.connectTimeoutMs / 1000} s.`,
        cause: error,
      });
    }
    throw new RepositoryError({
      code: 'repository_unreachable',
      message: GuardedFetchError.isInstance(error)
        ? `The repository download was refused: ${error.message}`
        : `${url.host} could not be reached.`,
      cause: error,
    });
  }
}

async function save(
  options: DownloadRepositoryArchiveOptions,
  response: Response,
  label: string,
): Promise<number> {
  const { maxArchiveBytes, readTimeoutMs } = options.limits;
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxArchiveBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge(label, maxArchiveBytes);
  }
  if (!response.body) return 0;
  const reader = response.body.getReader();
  const file = createWriteStream(options.destination, { mode: 0o600 });
  // A write still pending when the download is abandoned (cap, timeout, abort) fails once the file is destroyed:
  // keep that from becoming an unhandled error, and report a real write failure (a full disk) from the loop.
  let writeError: unknown;
  file.on('error', (error) => {
    writeError ??= error;
  });
  let total = 0;
  const aborted = abortedPromise(options.signal);
  try {
    for (;;) {
      const read = reader.read();
      const chunk = await withinDeadline(aborted ? Promise.race([read, aborted]) : read, {
        timeoutMs: readTimeoutMs,
        onTimeout: () =>
          new RepositoryError({
            code: 'repository_timeout',
            message: `The archive of ${label} stopped arriving for ${readTimeoutMs / 1000} s.`,
          }),
      });
      if (chunk.done) break;
      total += chunk.value.byteLength;
      if (total > maxArchiveBytes) throw tooLarge(label, maxArchiveBytes);
      if (writeError !== undefined) throw writeError;
      if (!file.write(chunk.value)) await once(file, 'drain');
    }
    if (writeError !== undefined) throw writeError;
    file.end();
    await once(file, 'close');
    return total;
  } catch (error) {
    await reader.cancel().catch(() => {});
    file.destroy();
    throw error;
  }
}

function tooLarge(label: string, maxArchiveBytes: number): RepositoryError {
  return new RepositoryError({
    code: 'repository_too_large',
    message: `Repository ${label} is too big: its archive passes the ${mib(maxArchiveBytes)} limit.`,
  });
}

function abortedPromise(signal: AbortSignal | undefined): Promise<never> | undefined {
  if (!signal) return undefined;
  const promise = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  promise.catch(() => {});
  return promise;
}

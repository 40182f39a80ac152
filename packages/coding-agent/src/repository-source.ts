import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RepositoryError } from './coding-agent-error.ts';
import type { RepositoryHost } from './repository-host.ts';

/** A repository the tool accepted: one on the host, or a folder on this machine. */
export type RepositorySource =
  | { readonly kind: 'remote'; readonly owner: string; readonly repo: string; readonly label: string }
  | { readonly kind: 'local'; readonly path: string; readonly label: string };

const namePattern = /^[A-Za-z0-9_.-]+$/;

function checkName(value: string, what: 'owner' | 'repository', input: string): string {
  if (!namePattern.test(value) || value === '.' || value === '..') {
    throw new RepositoryError({
      code: 'invalid_repository',
      message: `"${input}" is not a repository: the ${what} name may only have letters, digits, "_", "." and "-".`,
    });
  }
  return value;
}

function remote(owner: string, repo: string, input: string): RepositorySource {
  const name = repo.endsWith('.git') ? repo.slice(0, -4) : repo;
  checkName(owner, 'owner', input);
  checkName(name, 'repository', input);
  return { kind: 'remote', owner, repo: name, label: `${owner}/${name}` };
}

function usage(input: string, host: RepositoryHost): RepositoryError {
  return new RepositoryError({
    code: 'invalid_repository',
    message: `"${input}" is not a repository this tool can open. Give "owner/repo", https://${host.webHosts[0] ?? 'host'}/owner/repo or git@${host.webHosts[0] ?? 'host'}:owner/repo.git.`,
  });
}

/**
 * Reads the model's `github_repo`: `owner/repo`, a web URL on the host (`https://github.com/owner/repo`, with
 * `.git` or deeper paths such as `/tree/main`), an ssh address (`git@github.com:owner/repo.git`), or, when the
 * application allows local roots, an absolute path or `file:` URL inside one of them (symlinks resolved first,
 * so a link cannot lead outside). Anything else is refused with an example of what works.
 */
export async function parseRepositorySource(
  input: string,
  options: { readonly host: RepositoryHost; readonly localRoots?: readonly string[] },
): Promise<RepositorySource> {
  const text = input.trim();
  const hosts = options.host.webHosts.map((host) => host.toLowerCase());
  const ssh = /^(?:ssh:\/\/)?git@([^:/]+)[:/]([^/]+)\/([^/]+?)\/?$/.exec(text);
  if (ssh) {
    if (!hosts.includes((ssh[1] ?? '').toLowerCase())) throw usage(input, options.host);
    return remote(ssh[2] ?? '', ssh[3] ?? '', input);
  }
  if (text.startsWith('file:') || isAbsolute(text)) return local(text, input, options.localRoots ?? []);
  if (/^https?:\/\//i.test(text)) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw usage(input, options.host);
    }
    if (!hosts.includes(url.host.toLowerCase()) || url.username || url.password)
      throw usage(input, options.host);
    const [owner, repo] = url.pathname.split('/').filter(Boolean);
    if (!owner || !repo) throw usage(input, options.host);
    return remote(owner, repo, input);
  }
  const parts = text.split('/');
  if (parts.length === 2 && parts[0] && parts[1]) return remote(parts[0], parts[1], input);
  throw usage(input, options.host);
}

async function local(text: string, input: string, roots: readonly string[]): Promise<RepositorySource> {
  if (roots.length === 0) {
    throw new RepositoryError({
      code: 'local_repository_refused',
      message: 'Local folders are not enabled for this tool; give a repository as "owner/repo".',
    });
  }
  let path: string;
  try {
    path = await realpath(text.startsWith('file:') ? fileURLToPath(text) : text);
  } catch (error) {
    throw new RepositoryError({
      code: 'repository_not_found',
      message: `The folder "${input}" does not exist.`,
      cause: error,
    });
  }
  const inside = await Promise.all(
    roots.map(async (root) => {
      const real = await realpath(resolve(root)).catch(() => undefined);
      if (real === undefined) return false;
      const rel = relative(real, path);
      return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
    }),
  );
  if (!inside.includes(true) || !(await stat(path)).isDirectory()) {
    throw new RepositoryError({
      code: 'local_repository_refused',
      message: `The folder "${input}" is not inside a folder this tool may read.`,
    });
  }
  return { kind: 'local', path, label: path };
}

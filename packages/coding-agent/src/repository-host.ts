/**
 * Where repositories are downloaded from. `archiveUrl` and `tokenArchiveUrl` are templates with `{owner}` and
 * `{repo}` (filled in URL-encoded). Any server that serves a repository as a `tar.gz` works: GitHub, GitHub
 * Enterprise (`https://ghe.example/api/v3/repos/{owner}/{repo}/tarball/HEAD`), Gitea or Forgejo
 * (`https://git.example/{owner}/{repo}/archive/main.tar.gz`), a plain file server.
 */
export interface RepositoryHost {
  /** What people call it in messages ("GitHub"). */
  readonly name: string;
  /** Hosts (`host` or `host:port`) whose web and ssh URLs name a repository here: `github.com`. */
  readonly webHosts: readonly string[];
  /** The archive, downloaded without credentials first. */
  readonly archiveUrl: string;
  /**
   * With a token: the API URL that answers with a redirect to the archive (GitHub's `tarball` endpoint). The token
   * goes only to this URL; the redirect's target is fetched without it. Default: `archiveUrl`.
   */
  readonly tokenArchiveUrl?: string;
  /** How the token is sent: `Authorization: Bearer <token>` (GitHub) or `Authorization: token <token>` (Gitea). */
  readonly tokenScheme?: 'bearer' | 'token';
}

/** github.com: codeload archives, and the API's tarball redirect for a token. */
export const GITHUB_REPOSITORY_HOST: RepositoryHost = {
  name: 'GitHub',
  webHosts: ['github.com', 'www.github.com'],
  archiveUrl: 'https://codeload.github.com/{owner}/{repo}/tar.gz/HEAD',
  tokenArchiveUrl: 'https://api.github.com/repos/{owner}/{repo}/tarball/HEAD',
  tokenScheme: 'bearer',
};

/** Fills a template's `{owner}` and `{repo}`. */
export function fillRepositoryUrl(template: string, owner: string, repo: string): URL {
  return new URL(
    template.replaceAll('{owner}', encodeURIComponent(owner)).replaceAll('{repo}', encodeURIComponent(repo)),
  );
}

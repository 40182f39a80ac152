import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { RepositoryError } from './coding-agent-error.ts';
import { GITHUB_REPOSITORY_HOST } from './repository-host.ts';
import { parseRepositorySource } from './repository-source.ts';

const host = GITHUB_REPOSITORY_HOST;

describe('parseRepositorySource', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'toolbus-sources-'));
    await mkdir(join(root, 'allowed', 'project'), { recursive: true });
    await symlink('/etc', join(root, 'allowed', 'escape'));
  });
  after(() => rm(root, { recursive: true, force: true }));

  for (const [input, owner, repo] of [
    ['onyx-dot-app/onyx', 'onyx-dot-app', 'onyx'],
    ['  octo.org/my_repo.js  ', 'octo.org', 'my_repo.js'],
    ['https://github.com/onyx-dot-app/onyx', 'onyx-dot-app', 'onyx'],
    ['https://github.com/onyx-dot-app/onyx.git', 'onyx-dot-app', 'onyx'],
    ['https://www.github.com/onyx-dot-app/onyx/tree/main/backend', 'onyx-dot-app', 'onyx'],
    ['git@github.com:onyx-dot-app/onyx.git', 'onyx-dot-app', 'onyx'],
    ['git@github.com:onyx-dot-app/onyx', 'onyx-dot-app', 'onyx'],
    ['ssh://git@github.com/onyx-dot-app/onyx.git', 'onyx-dot-app', 'onyx'],
  ] as const) {
    it(`reads ${input.trim()}`, async () => {
      assert.deepEqual(await parseRepositorySource(input, { host }), {
        kind: 'remote',
        owner,
        repo,
        label: `${owner}/${repo}`,
      });
    });
  }

  for (const input of [
    'onyx',
    'a/b/c',
    'owner/re po',
    'own;er/repo',
    '../repo',
    'owner/..',
    'https://gitlab.com/owner/repo',
    'https://user:pass@github.com/owner/repo',
    'https://github.com/owner',
    'git@gitlab.com:owner/repo.git',
    'owner/$(rm -rf)',
  ]) {
    it(`refuses ${JSON.stringify(input)} with an example of what works`, async () => {
      await assert.rejects(
        parseRepositorySource(input, { host }),
        (error: unknown) => RepositoryError.isInstance(error) && error.code === 'invalid_repository',
      );
    });
  }

  it('opens local folders only inside the allowed roots, symlinks resolved first', async () => {
    const allowed = join(root, 'allowed');
    await assert.rejects(
      parseRepositorySource(join(allowed, 'project'), { host }),
      (error: unknown) => RepositoryError.isInstance(error) && error.code === 'local_repository_refused',
    );
    const local = await parseRepositorySource(pathToFileURL(join(allowed, 'project')).href, {
      host,
      localRoots: [allowed],
    });
    assert.equal(local.kind, 'local');
    for (const outside of [join(allowed, 'escape'), '/etc', join(allowed, '..')]) {
      await assert.rejects(
        parseRepositorySource(outside, { host, localRoots: [allowed] }),
        (error: unknown) => RepositoryError.isInstance(error) && error.code === 'local_repository_refused',
        outside,
      );
    }
    await assert.rejects(
      parseRepositorySource(join(allowed, 'missing'), { host, localRoots: [allowed] }),
      (error: unknown) => RepositoryError.isInstance(error) && error.code === 'repository_not_found',
    );
  });
});

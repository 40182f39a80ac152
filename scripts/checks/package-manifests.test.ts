// Every publishable workspace's package.json carries what npm shows on its page and what a tarball needs, from
// one source: the repository, its homepage and its issue tracker are the root package.json's, and each package
// names its own folder in `repository.directory` (so npm's links and a README's relative links land in it). The
// tarballs themselves are checked by e2e/packed-install.test.ts; this runs without packing.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { listWorkspaces, repoRoot } from './workspaces.ts';

interface PublishedManifest {
  readonly name: string;
  readonly private?: boolean;
  readonly description?: string;
  readonly keywords?: readonly string[];
  readonly license?: string;
  readonly repository?: { readonly type?: string; readonly url?: string; readonly directory?: string };
  readonly homepage?: string;
  readonly bugs?: { readonly url?: string };
  readonly engines?: { readonly node?: string };
  readonly files?: readonly string[];
  readonly exports?: unknown;
  readonly scripts?: Readonly<Record<string, string>>;
  readonly publishConfig?: { readonly access?: string };
}

const root = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as PublishedManifest;
const rootWeb = root.homepage?.replace(/#readme$/, '');
const license = readFileSync(join(repoRoot, 'LICENSE'), 'utf8');

test('the root package.json names the repository once, for every package', () => {
  assert.equal(root.repository?.type, 'git');
  assert.match(root.repository?.url ?? '', /^git\+https:\/\/.+\.git$/);
  assert.equal(`git+${rootWeb}.git`, root.repository?.url, 'homepage and repository name one place');
  assert.equal(root.bugs?.url, `${rootWeb}/issues`);
});

test("every publishable package's manifest has the fields npm shows, from the root's repository", () => {
  const problems: string[] = [];
  for (const { directory } of listWorkspaces()) {
    const manifest = JSON.parse(
      readFileSync(join(repoRoot, directory, 'package.json'), 'utf8'),
    ) as PublishedManifest;
    if (manifest.private) continue;
    const expect = (what: string, ok: boolean) => {
      if (!ok) problems.push(`${directory}: ${what}`);
    };
    expect('description', (manifest.description ?? '').length > 20);
    expect('keywords', (manifest.keywords ?? []).includes('toolbus'));
    expect('license MIT', manifest.license === 'MIT' && license.startsWith('MIT License'));
    expect(
      `repository { type, url: ${root.repository?.url}, directory: ${directory} }`,
      manifest.repository?.type === 'git' &&
        manifest.repository.url === root.repository?.url &&
        manifest.repository.directory === directory,
    );
    expect(
      `homepage ${rootWeb}/tree/main/${directory}#readme`,
      manifest.homepage === `${rootWeb}/tree/main/${directory}#readme`,
    );
    expect('bugs', manifest.bugs?.url === root.bugs?.url);
    expect(`engines.node ${root.engines?.node}`, manifest.engines?.node === root.engines?.node);
    expect('files', (manifest.files ?? []).length > 0 && manifest.exports !== undefined);
    expect(
      'publishConfig.access public',
      !manifest.name.startsWith('@') || manifest.publishConfig?.access === 'public',
    );
    expect('README.md', existsSync(join(repoRoot, directory, 'README.md')));
    expect(
      'LICENSE, the same as the root one',
      existsSync(join(repoRoot, directory, 'LICENSE')) &&
        readFileSync(join(repoRoot, directory, 'LICENSE'), 'utf8') === license,
    );
    // The workspace's `development` condition must not ship: scripts/pack-manifest.mjs strips it at pack time.
    expect(
      'prepack/postpack through scripts/pack-manifest.mjs',
      manifest.scripts?.prepack === 'node ../../scripts/pack-manifest.mjs strip' &&
        manifest.scripts.postpack === 'node ../../scripts/pack-manifest.mjs restore',
    );
  }
  assert.deepEqual(problems, []);
});

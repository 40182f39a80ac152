// toolbus as a user gets it: the packages packed with `npm pack`, installed from those tarballs into a fresh
// project outside the workspace (no workspace links; third-party packages from the npm cache, the registry only
// for what the cache lacks), then every documentation example run there on the compiled output and type-checked
// against the shipped declarations.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { exampleFiles, repoRoot } from './doc-examples/code-blocks.ts';
import { runExample } from './doc-examples/run-example.ts';
import { exampleScenarios } from './doc-examples/scenarios.ts';

/** The workspace packages `toolbus` depends on, itself included: the folders to pack. */
function packageFolders(): string[] {
  const folders = new Map<string, string>();
  for (const top of ['packages', 'services', 'apps'])
    for (const entry of readdirSync(join(repoRoot, top))) {
      try {
        const manifest = JSON.parse(readFileSync(join(repoRoot, top, entry, 'package.json'), 'utf8'));
        folders.set(manifest.name, `./${top}/${entry}`);
      } catch {
        // not a package
      }
    }
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const manifest = JSON.parse(
      readFileSync(join(repoRoot, folders.get(name) as string, 'package.json'), 'utf8'),
    );
    for (const dependency of Object.keys(manifest.dependencies ?? {}))
      if (folders.has(dependency)) visit(dependency);
  };
  visit('toolbus');
  return [...seen].map((name) => folders.get(name) as string);
}

/** The exact version the workspace installed, so the consumer gets what the cache holds. */
function installedVersion(name: string): string {
  return JSON.parse(readFileSync(join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')).version;
}

function run(command: string, args: readonly string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: process.env, timeout: 600_000 });
  assert.equal(result.status, 0, `${command} ${args.join(' ')} failed:\n${result.stderr}\n${result.stdout}`);
  return result.stdout;
}

describe('the packed packages, installed into a fresh project', () => {
  const root = mkdtempSync(join(tmpdir(), 'toolbus-packed-'));
  const tarballs = join(root, 'tarballs');
  const project = join(root, 'project');

  before(() => {
    // The compiled output is what a user runs: bring it up to date (incremental), then pack each package.
    run(
      process.execPath,
      [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-b', 'packages/toolbus/tsconfig.json'],
      repoRoot,
    );
    run('mkdir', ['-p', tarballs, project], root);
    run(
      'npm',
      ['pack', ...packageFolders(), '--pack-destination', tarballs, '--ignore-scripts', '--silent'],
      repoRoot,
    );
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    const packed = readdirSync(tarballs).map((name) => join(tarballs, name));
    run(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        ...packed,
        ...['zod', 'ai', '@modelcontextprotocol/server-everything'].map(
          (name) => `${name}@${installedVersion(name)}`,
        ),
      ],
      project,
    );
    for (const file of exampleFiles())
      copyFileSync(join(repoRoot, file), join(project, file.replace('docs/examples/', '')));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test('each tarball ships its build, types, license and manifest fields, and no tests', () => {
    for (const tarball of readdirSync(tarballs)) {
      const listing = run('tar', ['tzf', join(tarballs, tarball)], root).split('\n');
      assert.ok(listing.includes('package/LICENSE'), `${tarball}: LICENSE`);
      assert.ok(
        listing.includes('package/dist/index.js') && listing.includes('package/dist/index.d.ts'),
        `${tarball}: dist`,
      );
      assert.deepEqual(
        listing.filter((path) => /\.test\.|__fixtures__|tsbuildinfo/.test(path)),
        [],
        `${tarball}: no tests`,
      );
      const manifest = JSON.parse(
        run('tar', ['xzOf', join(tarballs, tarball), 'package/package.json'], root),
      );
      for (const field of ['description', 'license', 'repository', 'engines', 'exports', 'types', 'files'])
        assert.ok(manifest[field], `${tarball}: ${field}`);
    }
  });

  test('the packages are installed from the tarballs, not linked', () => {
    const core = spawnSync('readlink', [join(project, 'node_modules/@toolbus/core')], { encoding: 'utf8' });
    assert.equal(core.stdout, '', '@toolbus/core is a folder, not a workspace link');
    const umbrella = JSON.parse(readFileSync(join(project, 'node_modules/toolbus/package.json'), 'utf8'));
    assert.equal(umbrella.name, 'toolbus');
  });

  for (const file of exampleFiles()) {
    const name = file.replace('docs/examples/', '');
    test(`${name} runs on the installed packages`, async () => {
      const scenario = exampleScenarios[name];
      assert.ok(scenario);
      const result = await runExample(join(project, name), scenario, { cwd: project, development: false });
      assert.equal(result.code, 0, `${name} failed:\n${result.stderr}\n${result.stdout}`);
      for (const expected of scenario.expect) assert.match(result.stdout, expected);
    });
  }

  test('the examples type-check against the shipped declarations', () => {
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2023',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          allowImportingTsExtensions: true,
          types: ['node'],
          typeRoots: [join(repoRoot, 'node_modules/@types')],
        },
        include: ['*.ts'],
      }),
    );
    run(
      process.execPath,
      [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'],
      project,
    );
  });
});

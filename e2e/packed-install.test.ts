// toolbus as a user gets it: the packages packed with `npm pack`, installed from those tarballs into a fresh
// project outside the workspace (no workspace links), once; then, on that one install, the tarballs' contents and
// manifests are checked, every documentation example runs on the compiled output, the guide's tsconfig builds the
// examples and a new user's whole program against the shipped declarations, and that program runs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { codeBlocks, exampleFiles, repoRoot } from './doc-examples/code-blocks.ts';
import { makePackedProject, run } from './doc-examples/packed-project.ts';
import { runExample } from './doc-examples/run-example.ts';
import { exampleScenarios } from './doc-examples/scenarios.ts';
import { supportAgentFile, supportAgentScenario } from './new-user/scenario.ts';

/** Every file a manifest's `main`, `types`, `bin` and `exports` name, with the export conditions on the way. */
function manifestTargets(manifest: Record<string, unknown>): { path: string; conditions: string[] }[] {
  const targets: { path: string; conditions: string[] }[] = [];
  const walk = (value: unknown, conditions: string[]) => {
    if (typeof value === 'string') targets.push({ path: value, conditions });
    else if (Array.isArray(value)) for (const item of value) walk(item, conditions);
    else if (value !== null && typeof value === 'object')
      for (const [key, inner] of Object.entries(value))
        walk(inner, key.startsWith('.') ? conditions : [...conditions, key]);
  };
  walk(manifest.main, ['main']);
  walk(manifest.types, ['types']);
  walk(manifest.bin, ['bin']);
  walk(manifest.exports, []);
  return targets;
}

describe('the packed packages, installed into a fresh project', () => {
  const root = mkdtempSync(join(tmpdir(), 'toolbus-packed-'));
  let tarballs = '';
  let project = '';

  before(() => {
    ({ tarballs, project } = makePackedProject(root));
    for (const file of exampleFiles())
      copyFileSync(join(repoRoot, file), join(project, file.replace('docs/examples/', '')));
    copyFileSync(join(repoRoot, supportAgentFile), join(project, 'support-agent.ts'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test('each tarball ships its build, types, license, README and manifest fields, and no tests', () => {
    for (const tarball of readdirSync(tarballs)) {
      const listing = run('tar', ['tzf', join(tarballs, tarball)], root).split('\n');
      for (const file of ['LICENSE', 'README.md', 'dist/index.js', 'dist/index.d.ts'])
        assert.ok(listing.includes(`package/${file}`), `${tarball}: ${file}`);
      assert.deepEqual(
        listing.filter((path) => /\.test\.|__fixtures__|tsbuildinfo|package\.json\.workspace/.test(path)),
        [],
        `${tarball}: no tests`,
      );
      const manifest = JSON.parse(
        run('tar', ['xzOf', join(tarballs, tarball), 'package/package.json'], root),
      );
      for (const field of ['description', 'keywords', 'license', 'repository', 'homepage', 'bugs'])
        assert.ok(manifest[field], `${tarball}: ${field}`);
      for (const field of ['engines', 'exports', 'types', 'files'])
        assert.ok(manifest[field], `${tarball}: ${field}`);
    }
  });

  test('no packed manifest names a file its tarball lacks, nor a development condition, nor a pack script', () => {
    for (const tarball of readdirSync(tarballs)) {
      const listing = new Set(run('tar', ['tzf', join(tarballs, tarball)], root).split('\n'));
      const manifest = JSON.parse(
        run('tar', ['xzOf', join(tarballs, tarball), 'package/package.json'], root),
      );
      const targets = manifestTargets(manifest);
      assert.ok(targets.length > 0, `${tarball}: names its entry points`);
      for (const { path, conditions } of targets) {
        assert.ok(!conditions.includes('development'), `${tarball}: a development condition (${path})`);
        // (No manifest uses subpath patterns (`./*`); a pattern would fail here, to be taught then.)
        assert.ok(
          listing.has(`package/${path.replace(/^\.\//, '')}`),
          `${tarball}: ${conditions.join('/')} names ${path}, which the tarball lacks`,
        );
      }
      assert.deepEqual(
        Object.keys(manifest.scripts ?? {}).filter((name) => name.endsWith('pack')),
        [],
        tarball,
      );
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

  test('a user running Node with --conditions=development still loads the build', async () => {
    // With the workspace's development condition shipped, this loaded .ts sources from node_modules, which Node
    // refuses to run (ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING).
    const scenario = exampleScenarios['text-stream.ts'];
    assert.ok(scenario);
    const result = await runExample(join(project, 'text-stream.ts'), scenario, {
      cwd: project,
      development: true,
    });
    assert.equal(result.code, 0, result.stderr);
    for (const expected of scenario.expect) assert.match(result.stdout, expected);
  });

  test("the guide's tsconfig builds the examples and the new user's program on the shipped declarations", () => {
    const tsconfig = codeBlocks('docs/guide/library.md').find(
      (block) => block.language === 'json' && block.code.includes('"compilerOptions"'),
    );
    assert.ok(tsconfig, 'docs/guide/library.md shows a tsconfig.json');
    writeFileSync(join(project, 'tsconfig.json'), tsconfig.code);
    run(
      process.execPath,
      [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'],
      project,
    );
  });

  test("a new user's program, written from the README and the guide only, runs from its build", async () => {
    const source = readFileSync(join(repoRoot, supportAgentFile), 'utf8');
    const modules = [...source.matchAll(/^import[^;]*? from '([^']+)';/gms)].map((match) => match[1]);
    assert.deepEqual(
      modules.filter((name) => !['toolbus', 'zod'].includes(name as string) && !name?.startsWith('node:')),
      [],
      'imports only toolbus, zod and Node',
    );
    const documented = `${readFileSync(join(repoRoot, 'README.md'), 'utf8')}${readFileSync(join(repoRoot, 'docs/guide/library.md'), 'utf8')}`;
    const imported = /import \{([^}]*)\} from 'toolbus'/.exec(source)?.[1] ?? '';
    const names = imported
      .split(',')
      .map((name) => name.replace(/^\s*type\s+/, '').trim())
      .filter(Boolean);
    assert.ok(names.length >= 5);
    for (const name of names) assert.match(documented, new RegExp(`\\b${name}\\b`), `${name} is in the docs`);

    const result = await runExample(join(project, 'build/support-agent.js'), supportAgentScenario, {
      cwd: project,
      development: false,
    });
    assert.equal(result.code, 0, `support-agent failed:\n${result.stderr}\n${result.stdout}`);
    for (const expected of supportAgentScenario.expect) assert.match(result.stdout, expected);
  });
});

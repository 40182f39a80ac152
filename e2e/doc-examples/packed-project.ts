// A fresh project that gets toolbus as a user does: the workspace packages packed with `npm pack` (their prepack
// writes the manifest a tarball ships), installed from those tarballs with no workspace links, third-party
// packages from the npm cache (the registry only for what the cache lacks). Made once per test file: packing and
// installing are the slow part.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { supportAgentFile } from '../new-user/scenario.ts';
import { exampleFiles, repoRoot } from './code-blocks.ts';

/** Runs a command to completion; a failure fails the test with its output. */
export function run(command: string, args: readonly string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: process.env, timeout: 600_000 });
  assert.equal(result.status, 0, `${command} ${args.join(' ')} failed:\n${result.stderr}\n${result.stdout}`);
  return result.stdout;
}

/** The workspace packages the examples import, and the workspace packages they depend on: the folders to pack. */
export function packageFolders(): string[] {
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
  for (const file of [...exampleFiles(), supportAgentFile]) {
    for (const [, specifier] of readFileSync(join(repoRoot, file), 'utf8').matchAll(/ from '([^']+)';/g)) {
      const name = specifier
        ?.split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/');
      if (name !== undefined && folders.has(name)) visit(name);
    }
  }
  assert.ok(seen.has('toolbus'), 'the examples import toolbus');
  return [...seen].map((name) => folders.get(name) as string);
}

/** The exact version the workspace installed, so the consumer gets what the npm cache holds. */
function installedVersion(name: string): string {
  return JSON.parse(readFileSync(join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')).version;
}

/** What a user installs beside toolbus: zod (the guide's install line), the AI SDK, an MCP server, TypeScript's Node types. */
const thirdParty = ['zod', 'ai', '@modelcontextprotocol/server-everything', '@types/node'];

/**
 * Builds toolbus (incremental), packs it with its workspace dependencies into `root/tarballs` and installs the
 * tarballs into the empty project `root/project`. Returns the two folders.
 */
export function makePackedProject(root: string): { readonly tarballs: string; readonly project: string } {
  const tarballs = join(root, 'tarballs');
  const project = join(root, 'project');
  mkdirSync(tarballs, { recursive: true });
  mkdirSync(project, { recursive: true });
  run(
    process.execPath,
    [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-b', 'packages/toolbus/tsconfig.json'],
    repoRoot,
  );
  // With scripts: each package's prepack is what makes the manifest its tarball ships. It rewrites the manifest while
  // npm packs, so the packages are packed from a copy (beside a copy of the script it runs): the test files running
  // meanwhile read the workspace's manifests, which a pack in place left half-written or stripped for a moment.
  const stage = join(root, 'stage');
  const folders = packageFolders();
  for (const folder of folders) {
    const source = join(repoRoot, folder);
    cpSync(source, join(stage, folder), {
      recursive: true,
      filter: (path) => !relative(source, path).split(sep).includes('node_modules'),
    });
  }
  cpSync(join(repoRoot, 'scripts/pack-manifest.mjs'), join(stage, 'scripts/pack-manifest.mjs'));
  run('npm', ['pack', ...folders, '--pack-destination', tarballs, '--silent'], stage);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  run(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      ...readdirSync(tarballs).map((name) => join(tarballs, name)),
      ...thirdParty.map((name) => `${name}@${installedVersion(name)}`),
    ],
    project,
  );
  return { tarballs, project };
}

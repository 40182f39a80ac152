// Each workspace's package.json says what its code really imports: every package its run-time code imports (type
// imports too: the published declarations need them) is in `dependencies`, every dependency is imported by run-time
// code (a package that only imports spec does not depend on core), and what only tests, fixtures and benchmarks
// import is in `devDependencies` (or the root's). Imports are read with TypeScript's own scanner, plus the lazy
// `createRequire(import.meta.url)('x')` loads.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { importedSpecifiers, isDevFile, packageOf } from './imports.ts';
import { listSourceFiles, listWorkspaces, repoRoot, type Workspace } from './workspaces.ts';

const rootManifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
};

interface WorkspaceImports {
  /** Package → the first run-time file importing it. */
  readonly runtime: Map<string, string>;
  /** Package → the first test file importing it. */
  readonly dev: Map<string, string>;
  /** All text of the workspace's files (for packages used by name rather than imported, e.g. spawned servers). */
  readonly text: string;
}

function readImports(workspace: Workspace): WorkspaceImports {
  const runtime = new Map<string, string>();
  const dev = new Map<string, string>();
  let text = '';
  for (const file of listSourceFiles(workspace.directory)) {
    const source = readFileSync(join(repoRoot, file), 'utf8');
    text += source;
    const target = isDevFile(file) ? dev : runtime;
    for (const specifier of importedSpecifiers(source)) {
      const name = packageOf(specifier);
      if (name !== undefined && !target.has(name)) target.set(name, file);
    }
  }
  return { runtime, dev, text };
}

test('the import scanner reads static, type, dynamic and lazy imports', () => {
  const source = [
    "import { a } from '@scope/one/sub.js';",
    "import type { B } from 'two';",
    "export { c } from 'three';",
    "const four = await import('four');",
    "const five = createRequire(import.meta.url)('five') as typeof import('five');",
    "import { readFile } from 'node:fs';",
    "import { local } from './local.ts';",
  ].join('\n');
  const names = new Set(
    importedSpecifiers(source)
      .map(packageOf)
      .filter((name) => name !== undefined),
  );
  assert.deepEqual([...names].sort(), ['@scope/one', 'five', 'four', 'three', 'two']);
});

for (const workspace of listWorkspaces()) {
  const { manifest } = workspace;
  test(`${manifest.name}: package.json dependencies match the real imports`, () => {
    const imports = readImports(workspace);
    const dependencies = new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
    ]);
    const devDependencies = new Set(Object.keys(manifest.devDependencies ?? {}));
    const rootDev = new Set(Object.keys(rootManifest.devDependencies));
    const problems: string[] = [];
    for (const [name, file] of imports.runtime) {
      if (name === manifest.name || dependencies.has(name)) continue;
      problems.push(`${file} imports ${name}, which is not in dependencies`);
    }
    for (const [name, file] of imports.dev) {
      if (name === manifest.name || dependencies.has(name) || devDependencies.has(name) || rootDev.has(name))
        continue;
      problems.push(
        `${file} (test code) imports ${name}, which is in neither dependencies nor devDependencies`,
      );
    }
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      if (imports.runtime.has(name)) continue;
      problems.push(
        imports.dev.has(name)
          ? `${name} is in dependencies but only test code imports it: a devDependency`
          : `${name} is in dependencies but nothing imports it`,
      );
    }
    for (const name of devDependencies) {
      if (dependencies.has(name)) problems.push(`${name} is in both dependencies and devDependencies`);
      const typesOf = name.startsWith('@types/') ? name.slice('@types/'.length) : undefined;
      const used =
        imports.dev.has(name) ||
        imports.text.includes(name) ||
        (typesOf !== undefined && (imports.runtime.has(typesOf) || imports.dev.has(typesOf)));
      if (!used) problems.push(`${name} is in devDependencies but nothing in the workspace uses it`);
    }
    assert.deepEqual(problems, []);
  });
}

test('each workspace’s tsconfig references are exactly its workspace dependencies (the build graph)', () => {
  const workspaces = listWorkspaces();
  const tsconfigOf = (directory: string) =>
    JSON.parse(readFileSync(join(repoRoot, directory, 'tsconfig.json'), 'utf8')) as {
      compilerOptions?: { composite?: boolean };
      references?: { path: string }[];
    };
  // Only composite projects are in tsc's build graph; an app built by its own bundler (apps/web, Vite) is not.
  const built = workspaces.filter(
    ({ directory }) => tsconfigOf(directory).compilerOptions?.composite === true,
  );
  const directoryOf = new Map(built.map((workspace) => [workspace.manifest.name, workspace.directory]));
  const problems: string[] = [];
  for (const { directory, manifest } of built) {
    const tsconfig = tsconfigOf(directory);
    const referenced = (tsconfig.references ?? []).map((reference) => join(directory, reference.path)).sort();
    const expected = Object.keys(manifest.dependencies ?? {})
      .map((name) => directoryOf.get(name))
      .filter((found) => found !== undefined)
      .sort();
    if (JSON.stringify(referenced) !== JSON.stringify(expected)) {
      problems.push(
        `${directory}/tsconfig.json references [${referenced}], its dependencies are [${expected}]`,
      );
    }
  }
  assert.deepEqual(problems, []);
});

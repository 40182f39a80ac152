// Every package entry point (the root and each subpath export) either imports without Node-only modules, or is
// listed below as a Node entry with the reason. A portable root can be bundled for a browser or an edge runtime and
// loaded anywhere; what needs Node.js lives behind a subpath such as `@toolbus/core/node`. The check loads all
// entries in one child process under a module hook that records every resolution (ESM and require), then walks
// the recorded graph from each entry: a Node-only module reached at import time fails the portable entry, with the
// chain of files that reached it. Resolution uses the `browser` condition instead of `node`, as a bundler for the
// browser does, so a dependency with a browser build counts by that build. Lazy loads (`createRequire` on first use, `await import` inside a function) are
// not reached at import time, so they do not count.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { listWorkspaces, repoRoot } from './workspaces.ts';

/** Entry points that are Node-only on purpose, and why. Every other entry must be portable. */
const nodeEntries: ReadonlyMap<string, string> = new Map([
  ['@toolbus/core/node', 'the guarded fetch dials through node:dns and undici'],
  ['@toolbus/core/testing', 'scripted model servers on loopback node:http'],
  ['@toolbus/mcp/testing', 'loopback MCP servers (node:http, child processes)'],
  ['@toolbus/egress/node', 'the egress proxy itself: sockets, TLS, the CA store on disk, node:crypto'],
  [
    '@toolbus/server',
    'the HTTP server: node:http through @hono/node-server, hashed keys with node:crypto, storage',
  ],
  [
    '@toolbus/gateway',
    'the recovery gateway: an HTTP server and client over node:http, ids from node:crypto',
  ],
  ['@toolbus/coding-agent', 'repository archives streamed to disk (node:fs, node:events), sandbox sessions'],
  [
    '@toolbus/coding-agent/testing',
    'git repositories made on the fly (node:child_process) and served on loopback',
  ],
  ['@toolbus/research/testing', 'a Deep Research world on loopback (search backend, scripted model server)'],
  ['@toolbus/openapi/node', 'the directory file store writes files'],
  [
    'toolbus/openapi',
    'the OpenAPI tools with the directory file store, which writes files (node:fs, node:crypto)',
  ],
  ['toolbus/testing', 'the scripted model server on loopback node:http'],
  ['@toolbus/storage', 'node:sqlite databases, node:crypto secrets at rest, files'],
  ['@toolbus/storage/backend', 'the stores a PostgreSQL opener runs: node:crypto ids and secrets at rest'],
  ['@toolbus/storage/testing', 'conformance suites every Storage backend runs (node:test, node:assert)'],
  ['@toolbus/storage-postgres', 'the pg driver (node:net sockets), node:crypto secrets at rest'],
  [
    '@toolbus/storage-postgres/postgres-url',
    "reads a URL without the pg driver, but its StorageError is @toolbus/storage's (node:sqlite, node:fs)",
  ],
  [
    '@toolbus/storage-postgres/testing',
    'a throwaway PostgreSQL cluster (initdb and postgres child processes)',
  ],
  ['@toolbus/skills', 'zip bundles, files, sha-256 with node:crypto'],
  [
    '@toolbus/skills/testing',
    'the skill registry and blob store conformance suites run under node:test, with temporary folders',
  ],
  ['@toolbus/tools', 'the search index (node:sqlite, files), file reading, node:buffer images'],
  [
    '@toolbus/tools/testing',
    'the document index conformance suite runs under node:test, with temporary folders',
  ],
  ['@toolbus/assembly', 'cache keys with node:crypto; it wires storage-backed tools'],
  ['@toolbus/cli', 'the command line (files, terminal)'],
  ['@toolbus/interpreter', 'the sandbox service (bubblewrap processes, files, node:http)'],
  ['toolbus', 'the umbrella re-exports storage, skills and the guarded fetch'],
  ['@toolbus/redis', 'Redis connections (ioredis, BullMQ over node:net), lock tokens with node:crypto'],
  ['@toolbus/redis/testing', 'a throwaway redis-server child process (node:child_process, temporary files)'],
]);

interface Resolution {
  readonly parent: string;
  readonly url: string;
}

interface LoadReport {
  readonly entries: Record<string, string>;
  readonly failures: Record<string, string>;
  readonly resolutions: Resolution[];
}

function entrySpecifiers(): string[] {
  const specifiers: string[] = [];
  for (const { manifest } of listWorkspaces()) {
    for (const subpath of Object.keys(manifest.exports ?? { '.': null })) {
      specifiers.push(subpath === '.' ? manifest.name : `${manifest.name}${subpath.slice(1)}`);
    }
  }
  return specifiers;
}

function loadEntries(specifiers: readonly string[]): LoadReport {
  const script = `
    import { registerHooks } from 'node:module';
    const resolutions = [];
    registerHooks({
      resolve(specifier, context, next) {
        // Resolve as a browser bundler would: packages with a browser build (yaml, ...) count by that build.
        const conditions = [...context.conditions.filter((condition) => condition !== 'node'), 'browser'];
        const result = next(specifier, { ...context, conditions });
        resolutions.push({ parent: context.parentURL ?? '', url: result.url });
        return result;
      },
    });
    const entries = {};
    const failures = {};
    for (const specifier of ${JSON.stringify(specifiers)}) {
      try {
        entries[specifier] = import.meta.resolve(specifier);
        await import(specifier);
      } catch (error) {
        failures[specifier] = String(error?.stack ?? error);
      }
    }
    process.stdout.write(JSON.stringify({ entries, failures, resolutions }));
  `;
  const child = spawnSync(
    process.execPath,
    ['--conditions=development', '--input-type=module', '-e', script],
    {
      cwd: repoRoot,
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
      env: { ...process.env, TOOLBUS_TEST: '1' },
    },
  );
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout) as LoadReport;
}

const isNodeOnly = (url: string): boolean => url.startsWith('node:');

/** The chain of files from `entry` to the first Node-only module it reaches at import time, if any. */
function nodeOnlyChain(entry: string, edges: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const cameFrom = new Map<string, string>([[entry, '']]);
  const queue = [entry];
  while (queue.length > 0) {
    const current = queue.shift() as string;
    for (const next of edges.get(current) ?? []) {
      if (cameFrom.has(next)) continue;
      cameFrom.set(next, current);
      if (isNodeOnly(next)) {
        const chain = [next];
        for (let at = current; at !== ''; at = cameFrom.get(at) ?? '') chain.unshift(at);
        return chain.map((url) => url.replace(`file://${repoRoot}/`, ''));
      }
      if (!next.startsWith('node:')) queue.push(next);
    }
  }
  return undefined;
}

test('every package entry point imports without Node-only modules, unless it is a listed Node entry', () => {
  const specifiers = entrySpecifiers();
  for (const listed of nodeEntries.keys()) {
    assert.ok(specifiers.includes(listed), `${listed} is listed as a Node entry but no workspace exports it`);
  }
  const report = loadEntries(specifiers);
  assert.deepEqual(report.failures, {}, 'every entry point imports');
  const edges = new Map<string, string[]>();
  for (const { parent, url } of report.resolutions) {
    const list = edges.get(parent) ?? [];
    list.push(url);
    edges.set(parent, list);
  }
  const problems: string[] = [];
  const portable: string[] = [];
  for (const specifier of specifiers) {
    const entry = report.entries[specifier];
    assert.ok(entry !== undefined, `${specifier} resolves`);
    const chain = nodeOnlyChain(entry, edges);
    const reason = nodeEntries.get(specifier);
    if (reason === undefined && chain !== undefined) {
      problems.push(`${specifier} pulls in a Node-only module at import time: ${chain.join(' → ')}`);
    }
    if (reason !== undefined && chain === undefined) {
      problems.push(
        `${specifier} is listed as a Node entry (${reason}) but imports without Node-only modules`,
      );
    }
    if (reason === undefined) portable.push(specifier);
  }
  assert.deepEqual(problems, []);
  // The roots the contract promises to keep portable; a regression in any of them fails above.
  for (const root of [
    '@toolbus/spec',
    '@toolbus/core',
    '@toolbus/mcp',
    '@toolbus/openapi',
    '@toolbus/sandbox',
  ]) {
    assert.ok(portable.includes(root), `${root} is a portable root`);
  }
});

test('the check sees a Node-only import: core/node reaches node:dns or node:http through its net/ folder', () => {
  const report = loadEntries(['@toolbus/core/node']);
  const edges = new Map<string, string[]>();
  for (const { parent, url } of report.resolutions) edges.set(parent, [...(edges.get(parent) ?? []), url]);
  const chain = nodeOnlyChain(report.entries['@toolbus/core/node'] ?? '', edges);
  assert.ok(chain !== undefined, 'a chain to a Node-only module');
  assert.ok(
    chain.includes('node:dns') || chain.includes('node:module') || chain.includes('node:http'),
    chain.join(' → '),
  );
  assert.ok(
    chain.some((file) => file.startsWith('packages/core/src/net/')),
    chain.join(' → '),
  );
});

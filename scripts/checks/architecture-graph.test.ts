// docs/ARCHITECTURE.md's module map draws the package graph; this check holds it to the package.json files. Every
// edge the map draws is a declared dependency, and every declared dependency between workspaces is drawn: the
// run-time block against `dependencies`, the test-only block against `devDependencies`. Edges to `spec` may be
// left out (every package may import the contract); everything else that disagrees fails with the edge named.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { listWorkspaces, repoRoot } from './workspaces.ts';

/** `a → b`: workspace `a` depends on `b` (short names: `core`, `toolbus` for the umbrella). */
type Edge = `${string} → ${string}`;

const shortName = (name: string) => (name === 'toolbus' ? 'toolbus' : name.replace(/^@toolbus\//, ''));

/** The edges a block of the map draws: `{a, b} ← c ← {d, e}` says c depends on a and b, d and e on c. */
export function edgesOfMap(block: string): Set<Edge> {
  const edges = new Set<Edge>();
  for (const line of block.split('\n')) {
    for (const rawSegment of line.split(/\s{2,}/)) {
      // Notes in parentheses and back-ticks say why, not what: they are not nodes.
      let segment = rawSegment.replace(/`[^`]*`/g, '');
      while (/\([^()]*\)/.test(segment)) segment = segment.replace(/\([^()]*\)/g, '');
      if (!segment.includes('←')) continue;
      const groups = segment.split('←').map((group) =>
        group
          .replace(/[{}]/g, '')
          .split(',')
          .map((name) => name.trim())
          .filter((name) => name !== ''),
      );
      for (let index = 0; index + 1 < groups.length; index += 1) {
        for (const dependent of groups[index + 1] ?? []) {
          for (const dependency of groups[index] ?? []) edges.add(`${dependent} → ${dependency}`);
        }
      }
    }
  }
  return edges;
}

/** The fenced block right after `marker` in the document. */
function blockAfter(document: string, marker: string): string {
  const start = document.indexOf(marker);
  assert.ok(start >= 0, `docs/ARCHITECTURE.md has no "${marker}"`);
  const open = document.indexOf('```\n', start);
  const close = document.indexOf('\n```', open + 4);
  return document.slice(open + 4, close);
}

function declaredEdges(field: 'dependencies' | 'devDependencies'): Set<Edge> {
  const names = new Set(listWorkspaces().map((workspace) => workspace.manifest.name));
  const edges = new Set<Edge>();
  for (const { manifest } of listWorkspaces()) {
    for (const dependency of Object.keys(manifest[field] ?? {})) {
      if (names.has(dependency)) edges.add(`${shortName(manifest.name)} → ${shortName(dependency)}`);
    }
  }
  return edges;
}

function compare(drawn: Set<Edge>, declared: Set<Edge>, what: string): void {
  const invented = [...drawn].filter((edge) => !declared.has(edge)).sort();
  const missing = [...declared].filter((edge) => !drawn.has(edge) && !edge.endsWith('→ spec')).sort();
  assert.deepEqual(invented, [], `edges the map draws but no package.json declares as ${what}`);
  assert.deepEqual(missing, [], `${what} between workspaces the map does not draw`);
}

const document = readFileSync(join(repoRoot, 'docs/ARCHITECTURE.md'), 'utf8');

test('the module map draws exactly the run-time dependencies between workspaces', () => {
  compare(edgesOfMap(blockAfter(document, 'Run-time edges')), declaredEdges('dependencies'), 'dependencies');
});

test('the module map draws exactly the test-only dependencies between workspaces', () => {
  compare(
    edgesOfMap(blockAfter(document, 'Test-only edges')),
    declaredEdges('devDependencies'),
    'devDependencies',
  );
});

test('the map reader reads chains, sets and notes', () => {
  assert.deepEqual([...edgesOfMap('{a, b (types)} ← c ← {d, `x` e}          f ← g (why)')].sort(), [
    'c → a',
    'c → b',
    'd → c',
    'e → c',
    'g → f',
  ]);
});

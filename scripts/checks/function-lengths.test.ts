// "No function over 150 lines" (issue 29): at most five in the shipped source, the goal. Until the repo gets there,
// the count may not grow: `allowedLongFunctions` is today's number, to be lowered with every split (never raised).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { functionLengths } from './function-lengths.ts';
import { isDevFile } from './imports.ts';
import { listSourceFiles, listWorkspaces, repoRoot } from './workspaces.ts';

const longFunctionLines = 150;
const allowedLongFunctions = 3;

test('function lengths: each function-like node is measured and named as a reader would search for it', () => {
  const source = [
    'export function outer(a: number): number {', // 1
    '  const inner = (b: number) => {', // 2
    '    return b + 1;', // 3
    '  };', // 4
    '  return inner(a);', // 5
    '}', // 6
    'class Store {', // 7
    '  get(id: string) {', // 8
    '    return id;', // 9
    '  }', // 10
    '}', // 11
    "register('x', () => 1);", // 12
  ].join('\n');
  assert.deepEqual(
    functionLengths(source, 'sample.ts').map(({ name, line, lines }) => `${name}@${line}:${lines}`),
    ['outer@1:6', 'inner@2:3', 'get@8:3', 'register(…)@12:1'],
  );
});

test(`at most ${allowedLongFunctions} functions of the shipped source span over ${longFunctionLines} lines`, () => {
  const files = [
    ...listWorkspaces().flatMap((workspace) => listSourceFiles(workspace.directory)),
    ...listSourceFiles('scripts'),
  ].filter((file) => !isDevFile(file));
  const long = files.flatMap((file) =>
    functionLengths(readFileSync(join(repoRoot, file), 'utf8'), file)
      .filter((found) => found.lines > longFunctionLines)
      .map((found) => `${file}:${found.line} ${found.name} (${found.lines} lines)`),
  );
  assert.ok(
    long.length <= allowedLongFunctions,
    `${long.length} functions span over ${longFunctionLines} lines (at most ${allowedLongFunctions}); split the new ones by meaning:\n${long.join('\n')}`,
  );
});

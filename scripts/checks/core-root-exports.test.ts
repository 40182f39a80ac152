// @toolbus/core's root is what a newcomer reads first, and every name on it is a promise kept across releases.
// It holds the turn loop, tools, models and the packets' helpers; the parts only a sub-agent or the egress proxy
// needs sit behind documented subpaths (`@toolbus/core/step`, `@toolbus/core/net`). This check counts the root's
// names (values and types, as the compiler sees them) so that the root does not grow back by accident.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { repoRoot } from './workspaces.ts';

/** At most this many names on the root (issue 29: 164 before the one-loop redesign). */
const MAX_ROOT_NAMES = 130;

/** Loop internals that only sub-agents used: `@toolbus/core/step` or nowhere, never the root. */
const stepOnly = ['runLlmStep', 'StepPlacement', 'answerCutOffCalls', 'cutOffToolCallMessage', 'recoverStep'];

const root = join(repoRoot, 'packages/core/src/index.ts');
const stepEntry = join(repoRoot, 'packages/core/src/step.ts');
const program = ts.createProgram([root, stepEntry], {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  allowImportingTsExtensions: true,
  noEmit: true,
  skipLibCheck: true,
  types: [],
  customConditions: ['development'],
});

function exportedNames(entry: string): string[] {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  assert.ok(source, `${entry} is read`);
  const module = checker.getSymbolAtLocation(source);
  assert.ok(module, `${entry} is a module`);
  return checker.getExportsOfModule(module).map((symbol) => symbol.getName());
}

test(`@toolbus/core's root exports at most ${MAX_ROOT_NAMES} names, and no loop internals`, () => {
  const names = exportedNames(root);
  assert.ok(names.length > 50, `the root was read (${names.length} names)`);
  assert.ok(
    names.length <= MAX_ROOT_NAMES,
    `@toolbus/core exports ${names.length} names from its root (at most ${MAX_ROOT_NAMES}): put what only one ` +
      'caller needs behind a subpath, or keep it internal',
  );
  assert.deepEqual(
    stepOnly.filter((name) => names.includes(name)),
    [],
    'loop internals stay off the root',
  );
  const step = exportedNames(stepEntry);
  assert.ok(step.includes('runLlmStep') && step.includes('StepPlacement'), 'the step subpath has them');
});

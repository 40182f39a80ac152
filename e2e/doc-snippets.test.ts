// Every program in the documentation is an example file the tests run: a code block of README.md, a package
// README or docs/ in a program language names its file (`<!-- example: docs/examples/NAME.ts -->`) and holds it
// exactly (or says why it cannot be one: `<!-- not-an-example: REASON -->`); tsc checks the files (tsconfig.json includes docs/examples), and each runs here against the scripted
// model of its scenario. e2e/packed-install.test.ts runs them again on the packed packages.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  codeBlocks,
  documentationFiles,
  exampleFiles,
  programLanguages,
  repoRoot,
} from './doc-examples/code-blocks.ts';
import { runExample } from './doc-examples/run-example.ts';
import { exampleScenarios } from './doc-examples/scenarios.ts';

describe('code blocks of the documentation', () => {
  const blocks = documentationFiles().flatMap(codeBlocks);

  test('every program block names the example file it is taken from, and holds it exactly', () => {
    const problems: string[] = [];
    for (const block of blocks) {
      const where = `${block.document}:${block.line}`;
      if (block.example === undefined) {
        if (programLanguages.has(block.language) && block.exemption === undefined)
          problems.push(`${where}: a ${block.language} block without an example marker`);
        continue;
      }
      let source: string;
      try {
        source = readFileSync(join(repoRoot, block.example), 'utf8');
      } catch {
        problems.push(`${where}: ${block.example} does not exist`);
        continue;
      }
      if (source !== block.code)
        problems.push(`${where}: differs from ${block.example} (copy the file into the block)`);
    }
    assert.deepEqual(problems, []);
  });

  test('every example file is shown in the documentation and has a scenario', () => {
    const shown = new Set(blocks.map((block) => block.example));
    for (const file of exampleFiles()) {
      assert.ok(shown.has(file), `${file} is in no code block`);
      assert.ok(exampleScenarios[file.replace('docs/examples/', '')], `${file} has no scenario`);
    }
  });
});

describe('the examples run', () => {
  for (const file of exampleFiles()) {
    const name = file.replace('docs/examples/', '');
    test(name, async () => {
      const scenario = exampleScenarios[name];
      assert.ok(scenario, `${name} has no scenario in e2e/doc-examples/scenarios.ts`);
      const run = await runExample(join(repoRoot, file), scenario, { cwd: repoRoot, development: true });
      assert.equal(run.code, 0, `${name} failed:\n${run.stderr}\n${run.stdout}`);
      for (const expected of scenario.expect) assert.match(run.stdout, expected, `${name}'s output`);
    });
  }
});

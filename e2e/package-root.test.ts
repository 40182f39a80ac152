import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

// The stable entry points of @toolbus/core: users and tests import them from the package root, so a rename or a
// move behind a subpath is a breaking change this test makes visible.
const stableEntryPoints = [
  'extractToolCallsFromText',
  'XmlToolCallStreamFilter',
  'parseToolArguments',
  'createThinkToolStreamProcessor',
  'collapseCitations',
  'runToolCalls',
  'constructTools',
  'createGuardedFetch',
  'validateSkillBundle',
  'runDeepResearch',
  'createCodingAgentTool',
];

test('the built package imports by the name `toolbus` from the repo root, with the stable entry points', () => {
  // No --conditions=development here: this loads the compiled output, as a user of the package would.
  const result = spawnSync(
    process.execPath,
    ['-e', "import('toolbus').then((m) => console.log(JSON.stringify(Object.keys(m))))"],
    { cwd: new URL('..', import.meta.url).pathname, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } },
  );
  assert.equal(result.status, 0, `${result.stderr}\n(run \`npm run build\` first; \`npm run setup\` does)`);
  const exported = JSON.parse(result.stdout) as string[];
  for (const name of stableEntryPoints) assert.ok(exported.includes(name), `toolbus exports ${name}`);
  assert.ok(exported.includes('runChatTurn') && exported.includes('defineTool'));
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ResearchWorld, startResearchWorld } from '@toolbus/research/testing';
import { type CliHome, setCliConfig, startCliHome } from '../__fixtures__/cli-home.ts';
import { spawnCli, startCli } from '../__fixtures__/spawn-cli.ts';

describe('toolbus research', () => {
  let cli: CliHome;
  let world: ResearchWorld;
  let env: Record<string, string>;
  before(async () => {
    world = await startResearchWorld({ delayMs: 20 });
    cli = await startCliHome({
      prefix: 'toolbus-research-',
      model: `openai-compatible:${world.server.url}/v1#scripted`,
    });
    ({ env } = cli);
    await setCliConfig(env, [
      ['allowHosts', '127.0.0.1'],
      ['webSearch.provider', 'searxng'],
      ['webSearch.baseUrl', world.backend.origin],
    ]);
  });
  after(async () => {
    await world.close();
    await cli.close();
  });

  test('prints the plan, a line per agent, the report with its sources, and flags an unsupported citation', async () => {
    world.script = { tasks: ['Research solar panels', 'Research wind turbines'] };
    world.unsupportedClaim = 'The moon is made of green cheese';
    const { code, stdout, stderr } = await spawnCli(
      ['research', 'How do renewables compare?', '--context-window', '128000', '--skip-clarification'],
      env,
    );
    world.unsupportedClaim = undefined;
    assert.equal(code, 0, stderr);
    assert.match(stdout, /Research plan:\n1\. Gather sources\n2\. Compare them\n3\. Summarise\n/);
    assert.match(stdout, /… Agent 1: Research solar panels\n… Agent 2: Research wind turbines\n/);
    assert.match(stdout, /✓ Agent 1: Research solar panels — report written, 3 sources/);
    assert.match(stdout, /✓ Agent 2: Research wind turbines — report written, 3 sources/);
    assert.match(stdout, /solar panels history was measured carefully by the survey in 2026 \[1\]/);
    assert.match(stdout, /Sources:\n {2}\[1\] About solar panels history — http:\/\/127\.0\.0\.1/);
    assert.match(
      stdout,
      /Unsupported citations \(the cited source does not say this\):\n {2}\[1\] "The moon is made of green cheese\."/,
    );
    assert.match(stdout, /Citation check: \d+ supported, 1 unsupported, 0 unverifiable\./);
  });

  test('an agent whose every search failed is shown failed, and the report says what went unresearched', async () => {
    world.script = { tasks: ['Research solar panels', 'Research offline archives'] };
    const { code, stdout, stderr } = await spawnCli(
      ['research', 'Solar and archives?', '--context-window', '128000', '--skip-clarification'],
      env,
    );
    assert.equal(code, 0, stderr);
    assert.match(stdout, /✓ Agent 1: Research solar panels — report written, 3 sources/);
    assert.match(stdout, /✗ Agent 2: Research offline archives — .*Every search it made failed/);
    assert.doesNotMatch(stdout, /✓ Agent 2/);
    assert.match(stdout, /Not researched, because its research agent failed: Research offline archives\./);
  });

  for (const [signal, name, code] of [
    ['SIGINT', 'Ctrl-C', 130],
    ['SIGTERM', 'SIGTERM', 143],
  ] as const) {
    test(`${name} during a research run stops it: exit ${code}, "[stopped by the user]", no error`, async () => {
      world.script = { tasks: ['Research what hangs'] };
      const cli = startCli(
        ['research', 'What hangs?', '--context-window', '128000', '--skip-clarification'],
        env,
      );
      await cli.waitForOutput('… Agent 1: Research what hangs');
      cli.child.kill(signal);
      assert.equal(await cli.exited, code, cli.output().stderr);
      assert.match(cli.output().stdout, /\[stopped by the user\]\n$/);
      assert.doesNotMatch(cli.output().stderr, /aborted by the caller|toolbus:/);
    });
  }

  test('chat --research asks clarifying questions first; without a context window it refuses with a hint', async () => {
    world.script = { tasks: ['Research solar panels'] };
    const asked = await spawnCli(['chat', '--research', 'Tell me about energy, vague'], {
      ...env,
      TOOLBUS_CONTEXT_WINDOW: '128000',
    });
    assert.equal(asked.code, 0, asked.stderr);
    assert.match(asked.stdout, /1\. Which region do you mean\?/);
    assert.match(asked.stdout, /Answer the questions to continue the research/);
    assert.doesNotMatch(asked.stdout, /Research plan:/);

    const refused = await spawnCli(['research', 'Anything'], env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /input window \(contextWindowTokens\).*Pass --context-window <tokens>/);
  });
});

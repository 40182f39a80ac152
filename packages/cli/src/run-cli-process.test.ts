import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ScriptedStep } from '@toolbus/core/testing';
import { useScriptedCliHome } from './__fixtures__/scripted-cli-home.ts';
import { spawnCli, startCli } from './__fixtures__/spawn-cli.ts';

// `toolbus … | head`: the reader goes away while toolbus still writes. That is no crash: no EPIPE stack trace, and
// a running turn stops as Ctrl-C stops it (the model stream is closed, the turn is kept as stopped).

describe('output piped to a reader that goes away', () => {
  const cliHome = useScriptedCliHome({
    prefix: 'toolbus-pipe-',
    // A long answer, a word every 50 ms for 30 s: the turn is still streaming when the reader leaves.
    handler: () =>
      Array.from({ length: 600 }, (_, index): ScriptedStep[] => [
        { type: 'text', text: `word${index} ` },
        { type: 'delay', ms: 50 },
      ]).flat(),
  });

  test('help written into a closed pipe ends quietly with its own exit code', async () => {
    const cli = startCli(['--help'], cliHome.env);
    // Closed before the CLI writes anything: its first write meets EPIPE.
    cli.child.stdout.destroy();
    assert.equal(await cli.exited, 0);
    assert.equal(cli.output().stderr, '', 'no EPIPE stack trace');
  });

  test('a streaming turn stops when the reader leaves; the stopped turn is kept', async () => {
    const cli = startCli(
      ['chat', '--packets', '--tools', 'internal_search', 'Tell me everything'],
      cliHome.env,
    );
    await cli.waitForOutput('"message-delta"');
    cli.child.stdout.destroy();
    const code = await cli.exited;
    assert.doesNotMatch(cli.output().stderr, /EPIPE|\n\s+at /, 'no stack trace');
    assert.equal(code, 130, 'stopped, as by Ctrl-C');
    const request = cliHome.model.requests.at(-1);
    assert.ok(request);
    assert.equal(
      await cliHome.model.settled(request),
      'client-closed',
      'the model stream was closed, not read to its end',
    );
    const history = await spawnCli(['history'], cliHome.env);
    const chatId = /^(\S+) .* 1 turn\(s\) {2}Tell me everything$/m.exec(history.stdout)?.[1];
    assert.ok(chatId, history.stdout);
    const shown = await spawnCli(['history', chatId], cliHome.env);
    assert.match(shown.stdout, /— turn 1: stopped \(the output was closed\)/);
    assert.match(shown.stdout, /toolbus: word0 word1\b/, 'what was written is kept');
  });
});

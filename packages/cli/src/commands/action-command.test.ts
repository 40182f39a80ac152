import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CliIo } from '../cli-io.ts';
import { UsageError } from '../usage-error.ts';
import { type ActionInput, actionCommand, defineAction } from './action-command.ts';
import type { CliFlag } from './cli-subcommand.ts';
import { flagOptions } from './flag-options.ts';

const io: CliIo = { stdout: { write: () => true }, stderr: { write: () => true }, env: {}, cwd: '/' };

/** A command whose actions record what they were run with. */
function recordingCommand(options: { readonly defaultAction?: string } = {}) {
  const runs: { action: string; operands: readonly string[]; values: unknown }[] = [];
  const record =
    (action: string) =>
    async ({ operands, values }: ActionInput<readonly CliFlag[]>) => {
      runs.push({ action, operands, values: { ...values } });
      return 0;
    };
  const command = actionCommand({
    name: 'things',
    synopsis: 'things list|add|get   things',
    usage: 'Usage: toolbus things <action>\n',
    ...options,
    actions: [
      defineAction({ name: 'list', forms: [''], summary: 'Lists.', examples: [], run: record('list') }),
      defineAction({
        name: 'add',
        forms: ['<name> [<url>]'],
        summary: 'Adds.',
        operands: { first: 'a thing name', most: 2 },
        flags: [
          { name: 'tag', value: '<tag>', repeatable: true, description: 'a tag (repeatable)' },
          { name: 'shared', description: 'shared' },
        ],
        examples: [],
        run: record('add'),
      }),
      defineAction({
        name: 'get',
        forms: ['[<id>...]'],
        summary: 'Gets.',
        operands: { first: 'an id', optional: true, most: Number.POSITIVE_INFINITY },
        examples: [],
        run: record('get'),
      }),
    ],
  });
  return { command, runs };
}

async function refusal(run: Promise<unknown>): Promise<string> {
  const error = await run.then(
    () => assert.fail('expected a usage error'),
    (caught: unknown) => caught,
  );
  assert.ok(UsageError.isInstance(error), String(error));
  assert.equal(error.usage, 'Usage: toolbus things <action>\n', 'the usage travels with the refusal');
  return error.message;
}

describe('a command made of actions', () => {
  test('runs the action named first with its operands and flags, or the default action', async () => {
    const { command, runs } = recordingCommand({ defaultAction: 'list' });
    assert.deepEqual(
      command.subcommands?.map((subcommand) => subcommand.name),
      ['list', 'add', 'get'],
    );
    await command.run([], io);
    await command.run(['add', 'x', 'https://x.test', '--tag', 'a', '--tag', 'b', '--shared'], io);
    await command.run(['get', '1', '2', '3'], io);
    await command.run(['get'], io);
    assert.deepEqual(runs, [
      { action: 'list', operands: [], values: {} },
      { action: 'add', operands: ['x', 'https://x.test'], values: { tag: ['a', 'b'], shared: true } },
      { action: 'get', operands: ['1', '2', '3'], values: {} },
      { action: 'get', operands: [], values: {} },
    ]);
  });

  test('a missing or unknown action, a missing operand and extra operands are usage errors that say which', async () => {
    const { command, runs } = recordingCommand();
    assert.equal(await refusal(command.run([], io)), 'name an action (list, add, get).');
    assert.equal(await refusal(command.run(['lsit'], io)), 'unknown action "lsit" — did you mean "list"?');
    assert.equal(await refusal(command.run(['frobnicate'], io)), 'unknown action "frobnicate".');
    assert.equal(await refusal(command.run(['add'], io)), 'add needs a thing name.');
    assert.equal(await refusal(command.run(['add', 'x', 'y', 'z', 'w'], io)), 'unexpected "z w".');
    assert.equal(await refusal(command.run(['list', 'x'], io)), 'unexpected "x".');
    assert.equal(
      await refusal(command.run(['add', 'x', '--tga', 'a'], io)),
      'unknown option --tga — did you mean --tag?',
    );
    assert.deepEqual(runs, [], 'nothing ran');
  });

  test('the words after -- never name the action, nor reach the default action', async () => {
    for (const defaultAction of ['list', 'get']) {
      const { command, runs } = recordingCommand({ defaultAction });
      assert.equal(
        await refusal(command.run(['--', 'get'], io)),
        'name an action before -- (list, add, get).',
      );
      assert.equal(
        await refusal(command.run(['--', 'list'], io)),
        'name an action before -- (list, add, get).',
      );
      await command.run(['get', '--', '-odd-id'], io);
      assert.deepEqual(
        runs,
        [{ action: 'get', operands: ['-odd-id'], values: {} }],
        `default ${defaultAction}`,
      );
    }
  });

  test('an action may need two operands, and take the words after -- as they are', async () => {
    const seen: { operands: readonly string[]; passthrough: readonly string[] }[] = [];
    const record = async ({ operands, passthrough }: ActionInput<readonly CliFlag[]>) => {
      seen.push({ operands, passthrough });
      return 0;
    };
    const command = actionCommand({
      name: 'things',
      synopsis: 'things set|start   things',
      usage: 'Usage: toolbus things <action>\n',
      actions: [
        defineAction({
          name: 'set',
          forms: ['<key> <value>'],
          summary: 'Sets.',
          operands: { first: 'a key and a value', least: 2, most: 2 },
          examples: [],
          run: record,
        }),
        defineAction({
          name: 'start',
          forms: ['<name> -- <command> [args...]'],
          summary: 'Starts.',
          operands: { first: 'a name' },
          passthrough: true,
          examples: [],
          run: record,
        }),
      ],
    });
    assert.equal(await refusal(command.run(['set', 'key'], io)), 'set needs a key and a value.');
    await command.run(['set', 'key', '--', '-5'], io);
    await command.run(['start', 'x', '--', 'node', '--help', '--port', '3'], io);
    assert.deepEqual(seen, [
      { operands: ['key', '-5'], passthrough: [] },
      { operands: ['x'], passthrough: ['node', '--help', '--port', '3'] },
    ]);
  });
});

describe('flag options from declared flags', () => {
  test('a flag with a value is a string (a list when repeatable), one without is a switch', () => {
    assert.deepEqual(
      flagOptions([
        { name: 'persona', value: '<name>', description: 'p' },
        { name: 'env', value: '<NAME>', repeatable: true, description: 'e' },
        { name: 'yes', description: 'y' },
        { name: 'persona', value: '<name>', description: 'the same flag on a sibling' },
      ]),
      {
        persona: { type: 'string', multiple: false },
        env: { type: 'string', multiple: true },
        yes: { type: 'boolean', multiple: false },
      },
    );
  });

  test('one name declared as two kinds of flag is refused', () => {
    assert.throws(
      () =>
        flagOptions([
          { name: 'value', value: '<v>', description: 'one' },
          { name: 'value', value: '<v>', repeatable: true, description: 'many' },
        ]),
      /--value is declared twice/,
    );
  });
});

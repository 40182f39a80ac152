import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useCliHome, withHomeStorage } from '../__fixtures__/cli-home.ts';
import { runCliInProcess } from '../__fixtures__/run-cli-in-process.ts';

// `toolbus mcp` as a new user mistypes it: every wrong command line is one line naming the action (and the flag),
// exit 2, with the pointer to that action's --help, and it stores nothing.
describe('toolbus mcp command line', () => {
  const cli = useCliHome({ prefix: 'toolbus-mcp-command-' });
  const mcp = (...argv: string[]) => runCliInProcess(['mcp', ...argv], { env: cli.env, cwd: cli.home });

  test('a mistyped action, a missing name, extra words and a wrong flag value are exit 2', async () => {
    const cases: [string[], string, string][] = [
      [['aproove', 'files'], 'unknown action "aproove" — did you mean "approve"?', 'mcp'],
      [['tools'], 'tools needs a server name.', 'mcp tools'],
      [['rm', 'files', 'docs'], 'unexpected "docs".', 'mcp rm'],
      [['list', 'files'], 'unexpected "files".', 'mcp list'],
      [['add', 'files'], 'add needs a URL, or a command after --.', 'mcp add'],
      [['add', 'files', 'https://a.example/mcp', 'more'], 'unexpected "more".', 'mcp add'],
      [
        ['add', 'files', 'https://a.example/mcp', '--', 'node', 'server.mjs'],
        'give a URL or a command after --, not both.',
        'mcp add',
      ],
      [
        ['add', 'files', '--header', 'Authorization', '--', 'true'],
        '--header takes H=NAME, not "Authorization".',
        'mcp add',
      ],
      [['add', 'files', '--persona', '--', 'true'], '--persona needs a value', 'mcp add'],
      [['access', 'files', '--users'], '--users needs a value', 'mcp access'],
      [['credentials', 'files', '--set', 'a=B'], 'unknown option --set', 'mcp credentials'],
      [['approve', 'files', '--yes'], 'unknown option --yes', 'mcp approve'],
    ];
    for (const [argv, line, label] of cases) {
      const run = await mcp(...argv);
      assert.equal(run.code, 2, argv.join(' '));
      assert.equal(
        run.stderr,
        `toolbus ${label}: ${line}\nRun \`toolbus ${label} --help\` for its options.\n`,
      );
      assert.equal(run.stdout, '');
    }
    assert.deepEqual(await withHomeStorage(cli.home, (storage) => storage.mcpServers.list()), []);
  });

  test('--help on each action is its own; after -- it belongs to the server command', async () => {
    const actions = ['add', 'list', 'tools', 'approve', 'login', 'rm', 'access', 'template', 'credentials'];
    for (const action of actions) {
      const run = await mcp(action, '--help');
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, new RegExp(`^Usage: toolbus mcp ${action}`));
    }
    // The words after -- are the server's command, flags included: `--help` there starts no help.
    const added = await mcp('add', 'helpful', '--yes', '--', process.execPath, '--help');
    assert.equal(added.code, 1, 'node --help is no MCP server');
    assert.doesNotMatch(added.stdout, /Usage: toolbus/);
    assert.match(added.stderr, /MCP server "helpful" cannot be used/);
  });

  test('repeatable flags keep every value, in order', async () => {
    const run = await mcp('add', 'vars', '--env', 'FIRST_VAR', '--env', 'SECOND_VAR', '--', 'true');
    assert.equal(run.code, 1);
    // Each --env is read in turn: the first missing one is named.
    assert.match(run.stderr, /--env names the variable FIRST_VAR, which is not set/);
    const second = await runCliInProcess(
      ['mcp', 'add', 'vars', '--env', 'FIRST_VAR', '--env', 'SECOND_VAR', '--', 'true'],
      { env: { ...cli.env, FIRST_VAR: 'one' }, cwd: cli.home },
    );
    assert.match(second.stderr, /--env names the variable SECOND_VAR, which is not set/);
  });
});

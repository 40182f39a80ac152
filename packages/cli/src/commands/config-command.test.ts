import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCliInProcess } from '../__fixtures__/run-cli-in-process.ts';

// `toolbus config` as a new user meets it: a wrong action or a missing or extra word is one line naming the
// action (exit 2) with the pointer to its help, and the storage URL is described by the PostgreSQL package's reader.
describe('toolbus config', () => {
  let home: string;
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'toolbus-config-command-'));
  });
  after(async () => {
    await rm(home, { recursive: true, force: true });
  });
  const config = (argv: readonly string[], env: Record<string, string> = {}) =>
    runCliInProcess(['config', ...argv], { env: { TOOLBUS_HOME: home, ...env }, cwd: home });

  test('a mistyped action, a missing value and an extra word are exit 2, naming the action', async () => {
    const cases: [string[], string, string][] = [
      [['shwo'], 'toolbus config: unknown action "shwo" — did you mean "show"?', 'toolbus config'],
      [['set', 'memory'], 'toolbus config set: set needs a key and a value.', 'toolbus config set'],
      [['set'], 'toolbus config set: set needs a key and a value.', 'toolbus config set'],
      [['set', 'memory', 'on', 'now'], 'toolbus config set: unexpected "now".', 'toolbus config set'],
      [['unset'], 'toolbus config unset: unset needs a key.', 'toolbus config unset'],
      [['path', 'here'], 'toolbus config path: unexpected "here".', 'toolbus config path'],
      [
        ['show', '--all'],
        'toolbus config show: unknown option --all (it takes no options)',
        'toolbus config show',
      ],
    ];
    for (const [argv, line, label] of cases) {
      const run = await config(argv);
      assert.equal(run.code, 2, argv.join(' '));
      assert.equal(run.stderr, `${line}\nRun \`${label} --help\` for its options.\n`);
      assert.equal(run.stdout, '');
    }
    assert.equal(existsSync(join(home, 'config.json')), false, 'nothing was written');
  });

  test('a negative value is refused as an option with the way to give it, then checked as a value', async () => {
    const key = 'toolLimits.openai:gpt-4.1.maxTools';
    const flagLike = await config(['set', key, '-5']);
    assert.equal(flagLike.code, 2);
    assert.equal(
      flagLike.stderr,
      'toolbus config set: -5 is read as an option: to give a value that starts with -, put it after -- (-- -5).\n' +
        'Run `toolbus config set --help` for its options.\n',
    );
    const afterSeparator = await config(['set', key, '--', '-5']);
    assert.equal(afterSeparator.code, 1);
    assert.match(afterSeparator.stderr, /maxTools takes a (whole|positive).*, not "-5"/);
    assert.equal(existsSync(join(home, 'config.json')), false, 'nothing was written');
  });

  test('--help on each action is its own help and runs nothing', async () => {
    for (const action of ['show', 'set', 'unset', 'path']) {
      const run = await config([action, '--help']);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, new RegExp(`^Usage: toolbus config ${action}`));
    }
  });

  test('set, unset and path still work; show is the default', async () => {
    assert.equal(
      (await config(['set', 'memory', 'on'])).stdout,
      `Set memory in ${join(home, 'config.json')}\n`,
    );
    assert.match((await config([])).stdout, /memory: {9}on/);
    assert.equal((await config(['unset', 'memory'])).code, 0);
    assert.equal((await config(['path'])).stdout, `${join(home, 'config.json')}\n`);
  });

  test('a storage URL is described without its password, and one that is not PostgreSQL says so', async () => {
    const shown = await config([], {
      TOOLBUS_STORAGE_URL: 'postgresql://ana:pw-secret-9@db.internal:6543/tb',
    });
    assert.match(
      shown.stdout,
      /database: {7}PostgreSQL at db\.internal:6543\/tb \(from TOOLBUS_STORAGE_URL\)/,
    );
    assert.doesNotMatch(shown.stdout, /pw-secret-9/);
    const wrong = await config([], { TOOLBUS_STORAGE_URL: 'mysql://ana:pw-secret-9@db.internal/tb' });
    assert.match(
      wrong.stdout,
      /database: {7}PostgreSQL \(from TOOLBUS_STORAGE_URL\): A PostgreSQL URL starts with postgres:\/\/ or postgresql:\/\/, not mysql:\/\/\./,
    );
    assert.doesNotMatch(wrong.stdout, /pw-secret-9/);
  });

  test('the search index and the skills are shown where they live: files under the home, or the PostgreSQL database', async () => {
    const embedded = (await config([])).stdout;
    assert.match(embedded, new RegExp(`search index: {3}${join(home, 'index.db')}\n`));
    assert.match(embedded, new RegExp(`skills: {9}${join(home, 'skills')}\n`));
    const dataDirectory = join(home, 'elsewhere');
    assert.match(
      (await config([], { TOOLBUS_DATA_DIR: dataDirectory })).stdout,
      new RegExp(`skills: {9}${dataDirectory}\n`),
    );
    const shared = (await config([], { TOOLBUS_STORAGE_URL: 'postgres://ana@db.internal/tb' })).stdout;
    assert.match(shared, /search index: {3}in the PostgreSQL database above\n/);
    assert.match(shared, /skills: {9}in the PostgreSQL database above\n/);
    assert.doesNotMatch(shared, /index\.db/);
  });
});

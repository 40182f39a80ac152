import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startCliHome, useCliHome } from './__fixtures__/cli-home.ts';
import { type CliRun, spawnCli } from './__fixtures__/spawn-cli.ts';

// A new user's mistakes on the command line and in the config file, against the real process: each is said on
// one line that names the flag or key, with exit 2 for a wrong command line (1 for a wrong file), and never as a
// stack trace.

/** The first line of stderr; the rest may only be the pointer to --help. */
function errorLine(run: CliRun): string {
  const [first = '', ...rest] = run.stderr.trimEnd().split('\n');
  assert.ok(
    rest.every((line) => /^Run `toolbus .*--help`/.test(line)),
    `one error line (then at most the --help pointer): ${run.stderr}`,
  );
  assert.doesNotMatch(run.stderr, /\n\s+at |node:internal|Error: /, 'no stack trace');
  return first;
}

describe('wrong command lines and config files', () => {
  // No model answers here (NO_MODEL): every refusal below must come before the model is tried.
  const cli = useCliHome({ prefix: 'toolbus-usage-' });

  test('a negative, missing or non-numeric value names the flag and what it takes (exit 2)', async () => {
    const runs = await Promise.all([
      spawnCli(['chat', '--max-cycles', '-3', 'hi'], cli.env),
      spawnCli(['chat', '--model-timeout', '-5', 'hi'], cli.env),
      spawnCli(['chat', '--model'], cli.env),
      spawnCli(['serve', '--port', '-1'], cli.env),
      spawnCli(['serve', '--port', 'abc'], cli.env),
      spawnCli(['research', 'q', '--context-window=lots'], cli.env),
      spawnCli(['serve', '--public-origin', 'toolbus.example.com/app'], cli.env),
    ]);
    for (const run of runs) assert.equal(run.code, 2, run.stderr);
    const lines = runs.map(errorLine);
    assert.equal(lines[0], 'toolbus chat: --max-cycles takes a whole number from 1 to 50.');
    assert.equal(lines[1], 'toolbus chat: --model-timeout takes a number of seconds above 0.');
    assert.equal(lines[2], 'toolbus chat: --model needs a value');
    assert.equal(lines[3], 'toolbus serve: --port takes a number from 0 to 65535.');
    assert.equal(lines[4], 'toolbus serve: --port takes a number from 0 to 65535.');
    assert.equal(lines[5], 'toolbus research: --context-window takes a number of tokens, not "lots".');
    assert.equal(
      lines[6],
      'toolbus serve: --public-origin takes an origin such as https://toolbus.example.com (http or https, no path).',
    );
  });

  test('conflicting flags, an unknown tool and an option where a command belongs are wrong command lines', async () => {
    const runs = await Promise.all([
      spawnCli(['chat', '--continue', '--chat', 'abc', 'hi'], cli.env),
      spawnCli(['chat', '--tools', 'internal_serch', 'hi'], cli.env),
      spawnCli(['serve', '--host', '0.0.0.0', '--port', '0'], cli.env),
      spawnCli(['--verison'], cli.env),
      spawnCli(['mcp', 'add', 'x', '--yse', '--', 'true'], cli.env),
    ]);
    for (const run of runs) assert.equal(run.code, 2, run.stderr);
    const lines = runs.map(errorLine);
    assert.match(lines[0] ?? '', /^toolbus chat: --continue and --chat .*give one of them\.$/);
    assert.match(
      lines[1] ?? '',
      /^toolbus chat: --tools: unknown tool "internal_serch" — did you mean "internal_search"\?/,
    );
    assert.equal(
      lines[2],
      'toolbus serve: --host 0.0.0.0 is not a loopback address: serving on it needs --auth api-keys.',
    );
    assert.equal(lines[3], 'toolbus: unknown option --verison — did you mean --version?');
    // Two letters swapped beats another flag as near by one changed letter (--sse).
    assert.equal(lines[4], 'toolbus mcp add: unknown option --yse — did you mean --yes?');
  });

  test('no question (stdin closed or empty) is a wrong command line and records no chat', async () => {
    const [chat, research] = await Promise.all([
      spawnCli(['chat'], cli.env, { input: '' }),
      spawnCli(['research', '--context-window', '100000'], cli.env, { input: '  \n' }),
    ]);
    assert.equal(chat.code, 2, chat.stderr);
    assert.equal(errorLine(chat), 'toolbus chat: no question given (stdin was empty).');
    assert.equal(research.code, 2, research.stderr);
    assert.equal(errorLine(research), 'toolbus research: no question given (stdin was empty).');
    const history = await spawnCli(['history'], cli.env);
    assert.equal(history.stdout.trim(), 'No chats yet.', 'no empty "New chat" was kept');
  });

  test('a --file that is a folder or missing is said before the model is tried', async () => {
    const folder = join(cli.home, 'a-folder');
    await mkdir(folder, { recursive: true });
    const [asFolder, missing] = await Promise.all([
      spawnCli(['chat', '--file', folder, 'hi'], cli.env),
      spawnCli(['chat', '--file', 'nope.csv', 'hi'], cli.env, { cwd: cli.home }),
    ]);
    assert.equal(asFolder.code, 1);
    assert.equal(
      errorLine(asFolder),
      `toolbus: --file ${folder}: it is a folder, not a file (attach the files in it one by one)`,
    );
    assert.equal(missing.code, 1);
    assert.equal(errorLine(missing), 'toolbus: --file nope.csv: no such file');
  });

  test('an OpenAPI document that is a folder or missing is said in the same words', async () => {
    const folder = join(cli.home, 'a-folder');
    await mkdir(folder, { recursive: true });
    const [asFolder, missing] = await Promise.all([
      spawnCli(['openapi', 'add', folder], cli.env),
      spawnCli(['openapi', 'add', 'nope.json'], cli.env, { cwd: cli.home }),
    ]);
    assert.equal(asFolder.code, 1);
    assert.equal(errorLine(asFolder), `toolbus: ${folder}: it is a folder, not a file`);
    assert.equal(missing.code, 1);
    assert.equal(errorLine(missing), 'toolbus: nope.json: no such file');
  });

  test('a misspelt or mistyped config key refuses to run, naming the key; config unset removes it', async () => {
    const configHome = await startCliHome({ prefix: 'toolbus-usage-config-' });
    const configEnv = configHome.env;
    const file = join(configHome.home, 'config.json');
    try {
      await writeFile(file, JSON.stringify({ modle: 'openai:gpt-4.1', webSearch: { provder: 'brave' } }));
      const [chat, history] = await Promise.all([
        spawnCli(['chat', 'hi'], configEnv),
        spawnCli(['history'], configEnv),
      ]);
      for (const run of [chat, history]) {
        assert.equal(run.code, 1, run.stderr);
        assert.equal(
          errorLine(run),
          `toolbus: ${file}: unknown key "modle" — did you mean "model"?; unknown key "webSearch.provder" — did you mean "webSearch.provider"? (fix the file, or \`toolbus config unset <key>\`; \`toolbus config\` lists the settings)`,
        );
      }
      // config set and unset still work on such a file: they are how it is fixed.
      const unset = await spawnCli(['config', 'unset', 'modle'], configEnv);
      assert.equal(unset.code, 0, unset.stderr);
      const unsetNested = await spawnCli(['config', 'unset', 'webSearch.provder'], configEnv);
      assert.equal(unsetNested.code, 0, unsetNested.stderr);
      assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), { webSearch: {} });
      const fixed = await spawnCli(['history'], configEnv);
      assert.equal(fixed.code, 0, fixed.stderr);

      await writeFile(file, JSON.stringify({ model: 5 }));
      const typed = await spawnCli(['chat', 'hi'], configEnv);
      assert.equal(typed.code, 1);
      assert.match(errorLine(typed), /config\.json: model must be a string \(fix the file/);

      await rm(file);
      await mkdir(file);
      const folder = await spawnCli(['chat', 'hi'], configEnv);
      assert.equal(folder.code, 1);
      assert.match(errorLine(folder), /config\.json cannot be read \(it is a folder, not a file\)/);
      assert.doesNotMatch(folder.stderr, /not valid JSON/);
    } finally {
      await configHome.close();
    }
  });

  test('serve on a port in use names --port', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const run = await spawnCli(['serve', '--port', String(port)], cli.env);
      assert.equal(run.code, 1, run.stderr);
      assert.equal(
        errorLine(run),
        `toolbus: port ${port} on 127.0.0.1 is in use: pick another with --port (0 picks a free one).`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
    assert.equal(existsSync(join(cli.home, 'config.json')), false);
  });
});

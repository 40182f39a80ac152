import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { spawnCli } from './__fixtures__/spawn-cli.ts';

describe('the command surface of toolbus', () => {
  let home: string;
  let env: Record<string, string>;
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'toolbus-surface-'));
    env = { TOOLBUS_HOME: home };
  });
  after(async () => {
    await rm(home, { recursive: true, force: true });
  });

  test('--help works on every command and subcommand and runs nothing', async () => {
    const invocations = [
      ['--help'],
      ['chat', '--help'],
      ['index', '--help'],
      ['config', 'set', '--help'],
      ['skills', '--help'],
      ['skills', 'add', '--help'],
      ['sandbox', 'serve', '--help'],
      ['persona', 'create', '--help'],
      ['mcp', 'add', '--help'],
      ['openapi', 'add', '--help'],
      ['files', '--help'],
      ['history', '--help'],
    ];
    const runs = await Promise.all(invocations.map((args) => spawnCli(args, env)));
    runs.forEach((run, index) => {
      const args = invocations[index] as string[];
      assert.equal(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stdout, /Usage:/, args.join(' '));
      assert.equal(run.stderr, '', args.join(' '));
    });
    assert.match(runs[0]?.stdout ?? '', /Exit codes:\n {2}0 {4}done/);
    // Nothing ran: no database, no config file, no sandbox server (the process exited with 0 at once).
    assert.equal(existsSync(join(home, 'toolbus.db')), false);
    assert.equal(existsSync(join(home, 'config.json')), false);
  });

  test('--version prints the package version; unknown commands and flags name the closest valid one', async () => {
    const manifest = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
    const [version, command, flag, action] = await Promise.all([
      spawnCli(['--version'], env),
      spawnCli(['chta', 'hello'], env),
      spawnCli(['chat', '--modle', 'openai:gpt-4.1', 'hi'], env),
      spawnCli(['config', 'frobnicate'], env),
    ]);
    assert.equal(version.stdout, `toolbus ${manifest.version}\n`);
    assert.equal(command.code, 2);
    assert.match(command.stderr, /unknown command "chta" — did you mean "chat"\?/);
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /^toolbus chat: unknown option --modle — did you mean --model\?\n/);
    assert.equal(flag.stderr.match(/unknown option/g)?.length, 1, 'the error is printed once');
    assert.equal(flag.stdout, '', 'errors go to stderr only');
    assert.equal(action.code, 2);
  });

  test('config set validates keys, types, enumerations and provider names', async () => {
    const runs = await Promise.all([
      spawnCli(['config', 'set', 'memroy', 'on'], env),
      spawnCli(['config', 'set', 'memory', 'maybe'], env),
      spawnCli(['config', 'set', 'model', 'gpt4:turbo'], env),
      spawnCli(['config', 'set', 'webSearch.provider', 'bing'], env),
      spawnCli(['config', 'set', 'sandboxUrl', 'not a url'], env),
      spawnCli(['config', 'set', 'webSearch.apiKeyEnv', 'sk-live-123'], env),
      spawnCli(['config', 'set', 'toolLimits.openai:gpt-4.1.maxTools', 'many'], env),
      spawnCli(['config', 'set', 'webSearch.apiKey', 'sk-live-456'], env),
      spawnCli(['config', 'set', 'webSerch.apikey', 'sk-live-789'], env),
    ]);
    for (const run of runs) assert.equal(run.code, 1, run.stderr);
    assert.match(runs[0]?.stderr ?? '', /Unknown setting "memroy" — did you mean "memory"\?/);
    assert.match(runs[1]?.stderr ?? '', /memory takes one of on, off, not "maybe"/);
    assert.match(runs[2]?.stderr ?? '', /unknown model provider "gpt4" \(providers: openai, anthropic/);
    assert.match(runs[3]?.stderr ?? '', /webSearch\.provider takes one of brave, exa, serper/);
    assert.match(runs[4]?.stderr ?? '', /sandboxUrl takes an http\(s\) URL/);
    assert.match(runs[5]?.stderr ?? '', /the NAME of an environment variable/);
    assert.doesNotMatch(runs[5]?.stderr ?? '', /sk-live-123/, 'a key given by mistake is never echoed');
    assert.match(runs[6]?.stderr ?? '', /takes a whole number above 0/);
    // A key itself: the setting for its variable's name is named. A typo ending in "key": the closest setting.
    assert.match(runs[7]?.stderr ?? '', /Keys are not stored .*toolbus config set webSearch\.apiKeyEnv NAME/);
    assert.match(
      runs[8]?.stderr ?? '',
      /Unknown setting "webSerch\.apikey" — did you mean "webSearch\.apiKeyEnv"\?/,
    );
    for (const run of runs.slice(7)) assert.doesNotMatch(run.stderr, /sk-live/, 'a key is never echoed');
    assert.equal(existsSync(join(home, 'config.json')), false, 'nothing invalid was written');
    const good = await spawnCli(['config', 'set', 'toolLimits.openai:gpt-4.1.maxTools', '100'], env);
    assert.equal(good.code, 0, good.stderr);
    const file = JSON.parse(await readFile(join(home, 'config.json'), 'utf8'));
    assert.deepEqual(file.toolLimits, { 'openai:gpt-4.1': { maxTools: 100 } });
  });

  test('config works on a corrupt file, and reports a provider without its key as not usable', async () => {
    const corruptHome = await mkdtemp(join(tmpdir(), 'toolbus-corrupt-'));
    try {
      await writeFile(join(corruptHome, 'config.json'), '{"model": "openai:gpt-4.1", "colour": ');
      const shown = await spawnCli(['config'], { TOOLBUS_HOME: corruptHome });
      assert.equal(shown.code, 1);
      assert.match(shown.stdout, /PROBLEMS in the config file/);
      assert.match(shown.stdout, /is not valid JSON/);
      assert.match(shown.stdout, /expected keys: model, memory, sandboxUrl/);
      await writeFile(join(corruptHome, 'config.json'), '{"model": "openai:gpt-4.1", "colour": "blue"}');
      const typo = await spawnCli(['config'], { TOOLBUS_HOME: corruptHome });
      assert.match(typo.stdout, /- unknown key "colour"/);
      assert.match(typo.stdout, /model: {10}openai:gpt-4\.1 .*NOT usable: set OPENAI_API_KEY/);
      const keyed = await spawnCli(['config'], { TOOLBUS_HOME: corruptHome, OPENAI_API_KEY: 'sk-secret' });
      assert.match(keyed.stdout, /model: {10}openai:gpt-4\.1 at https:\/\/api\.openai\.com\/v1/);
      assert.doesNotMatch(keyed.stdout, /sk-secret/);
      // Chat refuses the broken file with the same clear message instead of guessing.
      await writeFile(join(corruptHome, 'config.json'), '{');
      const chat = await spawnCli(['chat', 'hi'], { TOOLBUS_HOME: corruptHome });
      assert.equal(chat.code, 1);
      assert.match(chat.stderr, /config\.json is not valid JSON/);
    } finally {
      await rm(corruptHome, { recursive: true, force: true });
    }
  });

  test('config says what run_python will really do without a sandboxUrl', async () => {
    const shown = await spawnCli(['config'], env);
    assert.match(shown.stdout, /sandbox: {8}no sandboxUrl: chat starts a sandbox in its own process/);
    assert.doesNotMatch(shown.stdout, /python is off/);
  });
});

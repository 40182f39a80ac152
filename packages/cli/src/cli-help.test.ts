import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { describe, test } from 'node:test';
import { useCliHome } from './__fixtures__/cli-home.ts';
import { runCliInProcess } from './__fixtures__/run-cli-in-process.ts';
import { COMMANDS as ENTRIES, loadAllCommands } from './commands/command-registry.ts';

// The registry loads a command's module when it runs; these tests read every command's help, so load them all.
const COMMANDS = await loadAllCommands();

/** Runs the CLI's entry function in this process, in `home`, with captured output. */
const run = (argv: readonly string[], home: string) =>
  runCliInProcess(argv, { env: { TOOLBUS_HOME: home }, cwd: home });

/** A likely typo of `--name`: two neighbouring letters swapped (or, for a short name, one letter dropped). */
function typo(name: string): string {
  if (name.length < 4) return `--${name.slice(0, -1)}`;
  const at = Math.floor(name.length / 2) - 1;
  const swapped = `${name.slice(0, at)}${name[at + 1]}${name[at]}${name.slice(at + 2)}`;
  return `--${swapped === name ? `${name}x` : swapped}`;
}

// Commands whose first argument is not a subcommand; their flags are read from their help.
const flagsFromUsage = (usage: string) => [...new Set(usage.match(/--[a-z][a-z-]+/g) ?? [])];

describe('help and flags, walked over the command table', () => {
  const cli = useCliHome({ prefix: 'toolbus-help-' });

  test("each registry entry's name is the name of the command its module exports", () => {
    assert.deepEqual(
      COMMANDS.map((command) => command.name),
      ENTRIES.map((entry) => entry.name),
    );
  });

  test('`toolbus --help` lists every command, what each does starting in one column', async () => {
    const help = await run(['--help'], cli.home);
    assert.equal(help.code, 0);
    const lines = help.stdout.split('\n').filter((line) => line.startsWith('  toolbus '));
    assert.equal(lines.length, COMMANDS.length);
    // Where each summary starts: after the first run of two or more spaces.
    const columns = lines.map((line) => {
      const gap = / {2,}/.exec(line.slice('  toolbus '.length));
      return gap && gap.index + gap[0].length;
    });
    assert.ok(
      columns.every((column) => column !== null),
      lines.join('\n'),
    );
    assert.equal(new Set(columns).size, 1, lines.join('\n'));
  });

  test('every command and subcommand has help of its own: it names itself, lists its flags and examples, exits 0', async () => {
    for (const command of COMMANDS) {
      const own = await run([command.name, '--help'], cli.home);
      assert.equal(own.code, 0, `${command.name}: ${own.stderr}`);
      assert.match(own.stdout, new RegExp(`Usage: toolbus ${command.name}\\b`), command.name);
      assert.equal(own.stderr, '', command.name);
      for (const subcommand of command.subcommands ?? []) {
        const label = `${command.name} ${subcommand.name}`;
        const help = await run([command.name, subcommand.name, '--help'], cli.home);
        assert.equal(help.code, 0, `${label}: ${help.stderr}`);
        assert.equal(help.stderr, '', label);
        assert.ok(help.stdout.startsWith(`Usage: toolbus ${label}`), `${label}:\n${help.stdout}`);
        assert.notEqual(help.stdout, own.stdout, `${label} prints its own help, not the parent's`);
        for (const flag of subcommand.flags ?? []) assert.match(help.stdout, new RegExp(`--${flag.name}\\b`));
        assert.match(help.stdout, /\nExamples:\n/, label);
        assert.ok(subcommand.examples.length > 0, label);
        for (const example of subcommand.examples) {
          assert.ok(example.startsWith(`toolbus ${label}`), `${label} example: ${example}`);
          assert.ok(help.stdout.includes(example), label);
        }
        // The other spellings of help give the same text.
        assert.equal((await run(['help', command.name, subcommand.name], cli.home)).stdout, help.stdout);
        assert.equal((await run([command.name, subcommand.name, 'x', '-h'], cli.home)).stdout, help.stdout);
      }
    }
    // Nothing ran: no database, no config, no skills folder.
    assert.deepEqual(await readdir(cli.home), []);
  });

  test("a wrong flag on any subcommand names the closest of that subcommand's own flags, before anything runs", async () => {
    for (const command of COMMANDS) {
      for (const subcommand of command.subcommands ?? []) {
        const label = `${command.name} ${subcommand.name}`;
        const flags = subcommand.flags ?? [];
        if (flags.length === 0) {
          const refused = await run([command.name, subcommand.name, '--bogus-flag'], cli.home);
          assert.equal(refused.code, 2, label);
          assert.match(
            refused.stderr,
            new RegExp(`^toolbus ${label}: unknown option --bogus-flag \\(it takes no options\\)\\n`),
          );
          continue;
        }
        for (const flag of flags) {
          const wrong = typo(flag.name);
          const refused = await run([command.name, subcommand.name, wrong], cli.home);
          assert.equal(refused.code, 2, `${label} ${wrong}`);
          assert.equal(refused.stdout, '', `${label} ${wrong}`);
          assert.equal(
            refused.stderr,
            `toolbus ${label}: unknown option ${wrong} — did you mean --${flag.name}?\nRun \`toolbus ${label} --help\` for its options.\n`,
          );
        }
      }
    }
    assert.deepEqual(await readdir(cli.home), []);
  });

  test('a wrong flag on a command without subcommands names the closest valid one', async () => {
    for (const command of COMMANDS.filter((candidate) => candidate.subcommands === undefined)) {
      const [flag] = flagsFromUsage(command.usage).filter((name) => name !== '--help');
      assert.ok(flag, `${command.name} documents a flag`);
      const wrong = typo(flag.slice(2));
      const refused = await run([command.name, wrong], cli.home);
      assert.equal(refused.code, 2, `${command.name} ${wrong}: ${refused.stderr}`);
      assert.match(
        refused.stderr,
        new RegExp(`^toolbus ${command.name}: unknown option ${wrong} — did you mean ${flag}\\?\\n`),
      );
    }
    assert.deepEqual(await readdir(cli.home), []);
  });
});

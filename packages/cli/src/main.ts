import { readFileSync } from 'node:fs';
import { ToolbusError } from '@toolbus/spec';
import type { CliIo } from './cli-io.ts';
import { closestName } from './closest-name.ts';
import type { CliCommand } from './commands/cli-command.ts';
import { type CliSubcommand, subcommandHelp } from './commands/cli-subcommand.ts';
import { COMMANDS, loadAllCommands } from './commands/command-registry.ts';
import { EXIT_CODES, EXIT_CODES_HELP } from './exit-codes.ts';
import { UsageError } from './usage-error.ts';

async function usage(): Promise<string> {
  return `toolbus — connect LLMs to tools

Usage:
${synopsisLines(await loadAllCommands()).join('\n')}

Run \`toolbus <command> --help\` for a command's options (help never runs anything).
  --version   print the version

${EXIT_CODES_HELP}
`;
}

// The commands' forms in one column and what they do in the next, whatever the length of each form.
function synopsisLines(commands: readonly CliCommand[]): string[] {
  const rows = commands.map((command) => {
    const gap = /\s{2,}/.exec(command.synopsis);
    return gap === null
      ? { form: command.synopsis, summary: '' }
      : {
          form: command.synopsis.slice(0, gap.index),
          summary: command.synopsis.slice(gap.index + gap[0].length),
        };
  });
  const width = Math.max(...rows.map((row) => row.form.length));
  return rows.map(({ form, summary }) => `  toolbus ${summary ? `${form.padEnd(width)}  ${summary}` : form}`);
}

/** The CLI package's version, from its package.json (one owner). */
export function cliVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}

/**
 * Runs the `toolbus` command line; resolves to the exit code (see `EXIT_CODES`). `--help` anywhere before `--`
 * prints the command's help and runs nothing. An error is printed once, on stderr, as one actionable line.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr.write(await usage());
    return EXIT_CODES.usage;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    io.stdout.write(`toolbus ${cliVersion()}\n`);
    return EXIT_CODES.ok;
  }
  if (name === 'help' || name === '--help' || name === '-h') {
    const topic = await COMMANDS.find((command) => command.name === rest[0])?.load();
    const subcommand = topic === undefined ? undefined : subcommandOf(topic, rest.slice(1));
    io.stdout.write(
      topic === undefined ? await usage() : subcommand ? subcommandHelp(topic.name, subcommand) : topic.usage,
    );
    return EXIT_CODES.ok;
  }
  const entry = COMMANDS.find((candidate) => candidate.name === name);
  if (entry === undefined && name.startsWith('-')) {
    // Before a command only --help and --version exist: say it is an option, not a command.
    const suggestion = closestName(name.split('=')[0] as string, ['--help', '--version']);
    io.stderr.write(
      `toolbus: unknown option ${name}${suggestion ? ` — did you mean ${suggestion}?` : ''}\n` +
        'Run `toolbus --help` for the commands.\n',
    );
    return EXIT_CODES.usage;
  }
  if (entry === undefined) {
    const suggestion = closestName(
      name,
      COMMANDS.map((candidate) => candidate.name),
    );
    io.stderr.write(
      `toolbus: unknown command "${name}"${suggestion ? ` — did you mean "${suggestion}"?` : ''}\n` +
        `Run \`toolbus --help\` for the commands.\n`,
    );
    return EXIT_CODES.usage;
  }
  // Only this command's module is imported: `toolbus serve` does not load the others and what they import.
  const command = await entry.load();
  const subcommand = subcommandOf(command, rest[0] === 'help' ? rest.slice(1) : rest);
  if (wantsHelp(rest)) {
    io.stdout.write(subcommand ? subcommandHelp(command.name, subcommand) : command.usage);
    return EXIT_CODES.ok;
  }
  const label = subcommand ? `${command.name} ${subcommand.name}` : command.name;
  // A subcommand's flags are checked before anything runs, against its own (not its siblings').
  const wrongFlag = subcommand === undefined ? undefined : unknownFlag(subcommand, rest.slice(1));
  if (wrongFlag !== undefined) {
    io.stderr.write(`toolbus ${label}: ${wrongFlag}\nRun \`toolbus ${label} --help\` for its options.\n`);
    return EXIT_CODES.usage;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (UsageError.isInstance(error)) {
      io.stderr.write(
        `toolbus ${label}: ${error.message}\nRun \`toolbus ${label} --help\` for its options.\n`,
      );
      return EXIT_CODES.usage;
    }
    io.stderr.write(`toolbus: ${describeError(error)}\n`);
    return EXIT_CODES.failure;
  }
}

/** The subcommand `argv` starts with (`add` in `mcp add x`), when the command has one of that name. */
function subcommandOf(command: CliCommand, argv: readonly string[]): CliSubcommand | undefined {
  const [first] = argv;
  return first === undefined ? undefined : command.subcommands?.find((candidate) => candidate.name === first);
}

/** The problem with the first `--flag` (before a `--`) that `subcommand` does not take, naming the closest one. */
function unknownFlag(subcommand: CliSubcommand, argv: readonly string[]): string | undefined {
  const names = (subcommand.flags ?? []).map((flag) => `--${flag.name}`);
  for (const argument of argv) {
    if (argument === '--') return undefined;
    if (!argument.startsWith('--')) continue;
    const flag = argument.split('=')[0] as string;
    if (names.includes(flag)) continue;
    const suggestion = closestName(flag, names);
    return `unknown option ${flag}${
      suggestion ? ` — did you mean ${suggestion}?` : names.length === 0 ? ' (it takes no options)' : ''
    }`;
  }
  return undefined;
}

/** `--help`/`-h` before a `--` (after it, arguments belong to something else, e.g. an MCP server's command). */
function wantsHelp(argv: readonly string[]): boolean {
  if (argv[0] === 'help') return true;
  for (const argument of argv) {
    if (argument === '--') return false;
    if (argument === '--help' || argument === '-h') return true;
  }
  return false;
}

function describeError(error: unknown): string {
  if (ToolbusError.isInstance(error)) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

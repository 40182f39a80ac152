/** One flag of a subcommand, as its help lists it. */
export interface CliFlag {
  /** Without the dashes: `persona` for `--persona`. */
  readonly name: string;
  /** The value's placeholder (`<name>`); absent for a switch. */
  readonly value?: string;
  readonly description: string;
  /** It may be given more than once: its values arrive as a list (a flag with a value only). */
  readonly repeatable?: boolean;
}

/**
 * One subcommand (`toolbus mcp add`): its own help (usage lines, flags, examples), printed by
 * `toolbus <command> <subcommand> --help` without running anything, and its flags, which the entry point checks
 * before the command runs, so a wrong flag names the closest of this subcommand's own.
 */
export interface CliSubcommand {
  readonly name: string;
  /** The argument forms after `toolbus <command> <name>`, one per line (`<name> -- <command> [args...]`). */
  readonly forms: readonly string[];
  /** What it does, in a sentence or two. */
  readonly summary: string;
  readonly flags?: readonly CliFlag[];
  /** Whole command lines, starting with `toolbus`. */
  readonly examples: readonly string[];
}

/** The help text of `toolbus <command> <subcommand>`: usage lines, the summary, the flags and examples. */
export function subcommandHelp(command: string, subcommand: CliSubcommand): string {
  const prefix = `toolbus ${command} ${subcommand.name}`;
  const forms = subcommand.forms.length > 0 ? subcommand.forms : [''];
  const usageLines = forms.map(
    (form, index) => `${index === 0 ? 'Usage: ' : '       '}${prefix}${form ? ` ${form}` : ''}`,
  );
  const flags = subcommand.flags ?? [];
  const flagLabels = flags.map((flag) => `--${flag.name}${flag.value ? ` ${flag.value}` : ''}`);
  const width = Math.max(0, ...flagLabels.map((label) => label.length)) + 2;
  const sections = [
    usageLines.join('\n'),
    wrap(subcommand.summary, 100),
    flags.length > 0
      ? `Options:\n${flags.map((flag, index) => `  ${(flagLabels[index] ?? '').padEnd(width)}${flag.description}`).join('\n')}`
      : 'Options: none.',
    `Examples:\n${subcommand.examples.map((example) => `  ${example}`).join('\n')}`,
  ];
  return `${sections.join('\n\n')}\n`;
}

/** Breaks `text` into lines of at most `width` characters, at spaces. */
function wrap(text: string, width: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines.join('\n');
}

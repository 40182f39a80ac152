import type { ParseArgsOptionsConfig } from 'node:util';
import type { CliFlag } from './cli-subcommand.ts';

type FlagValue<Flag extends CliFlag> = Flag extends { readonly value: string }
  ? Flag extends { readonly repeatable: true }
    ? string[]
    : string
  : boolean;

/**
 * What the command line gave for `Flags`, by flag name: the value of a flag with one (a list for a repeatable
 * one), `true` for a switch; absent when the flag was not given.
 */
export type FlagValues<Flags extends readonly CliFlag[]> = {
  readonly [Flag in Flags[number] as Flag['name']]?: FlagValue<Flag>;
};

/**
 * The `parseArgs` options for flags declared as help lists them, so a flag is declared once: what the help
 * shows, what the entry point checks and what is parsed cannot drift apart. A name declared twice (siblings
 * sharing `--persona`) must mean the same both times.
 */
export function flagOptions(flags: readonly CliFlag[]): ParseArgsOptionsConfig {
  const options: ParseArgsOptionsConfig = {};
  for (const flag of flags) {
    const option = {
      type: flag.value === undefined ? ('boolean' as const) : ('string' as const),
      multiple: flag.repeatable === true,
    };
    const known = options[flag.name];
    if (known !== undefined && (known.type !== option.type || known.multiple !== option.multiple)) {
      throw new Error(`--${flag.name} is declared twice with different kinds of value.`);
    }
    options[flag.name] = option;
  }
  return options;
}

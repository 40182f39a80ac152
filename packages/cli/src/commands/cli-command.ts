import type { CliIo } from '../cli-io.ts';
import type { CliSubcommand } from './cli-subcommand.ts';

/**
 * One `toolbus` command. The registry (`command-registry.ts`) is the single table of them: adding a command is a
 * new file exporting one of these and one line in that table.
 */
export interface CliCommand {
  /** The word after `toolbus`. */
  readonly name: string;
  /**
   * One line for `toolbus --help`: the command's form, two spaces or more, then what it does (the help aligns
   * the two columns).
   */
  readonly synopsis: string;
  /** The full help text (`toolbus <name> --help`), printed without running anything. */
  readonly usage: string;
  /**
   * Its subcommands (`add`, `list`, ...), each with its own help and flags; absent for a command that takes none
   * (the first argument of `chat` is a question, not a subcommand).
   */
  readonly subcommands?: readonly CliSubcommand[];
  /** Runs the command; resolves to an exit code from `EXIT_CODES`. */
  run(argv: readonly string[], io: CliIo): Promise<number>;
}

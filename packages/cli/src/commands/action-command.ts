import type { CliIo } from '../cli-io.ts';
import { closestName } from '../closest-name.ts';
import { parseCommandArgs } from '../parse-command-args.ts';
import { UsageError } from '../usage-error.ts';
import type { CliCommand } from './cli-command.ts';
import type { CliFlag, CliSubcommand } from './cli-subcommand.ts';
import { type FlagValues, flagOptions } from './flag-options.ts';

/** The words after an action's name (`research` in `toolbus persona use research`). */
export interface ActionOperands {
  /** What it needs, for the refusal when they are missing: `a persona name`, `a key and a value`. */
  readonly first: string;
  /** The action runs without it (`toolbus persona show` shows the one in use). */
  readonly optional?: boolean;
  /** How many it needs at the least when not optional (default 1; 2 for `<key> <value>`, said as `first`). */
  readonly least?: number;
  /** How many it takes at the most (default 1; `Infinity` for a list of ids). */
  readonly most?: number;
}

/** What an action runs with: its operands, its own flags' values and the terminal. */
export interface ActionInput<Flags extends readonly CliFlag[]> {
  readonly operands: readonly string[];
  /** The words after `--` when the action declares {@link CliAction.passthrough}; otherwise empty. */
  readonly passthrough: readonly string[];
  readonly values: FlagValues<Flags>;
  readonly io: CliIo;
}

/**
 * One action of a resource (`toolbus openapi rm`): its help and flags as a {@link CliSubcommand}, the operands it
 * takes, and what it does. The command checks the operands before `run`, so `run` may rely on them.
 */
export interface CliAction<Flags extends readonly CliFlag[] = readonly CliFlag[]> extends CliSubcommand {
  readonly flags?: Flags;
  /** Absent: it takes none. */
  readonly operands?: ActionOperands;
  /**
   * True: the words after `--` (the command that starts an MCP server) reach `run` as they are, flags included,
   * never parsed. Absent: they are operands, so `toolbus files get -- -odd-id` still works.
   */
  readonly passthrough?: true;
  /** Resolves to an exit code from `EXIT_CODES`. */
  run(input: ActionInput<Flags>): Promise<number>;
}

/** An action whose `run` sees its own flags typed by their declaration (a switch as boolean, a value as string). */
export function defineAction<const Flags extends readonly CliFlag[] = readonly []>(
  action: CliAction<Flags>,
): CliAction {
  return action as unknown as CliAction;
}

/**
 * A command made of a resource's actions (`toolbus persona list|create|show|use|rm`). It parses the flags the
 * actions declare, picks the action named first (or `defaultAction`), refuses a missing or unknown action and
 * missing or extra operands as usage errors (exit 2, with the pointer to `--help`), then runs the action.
 */
export function actionCommand(spec: {
  readonly name: string;
  /** One line for `toolbus --help` (see {@link CliCommand.synopsis}). */
  readonly synopsis: string;
  readonly usage: string;
  /** The action of a bare `toolbus <name>`; without one, naming an action is required. */
  readonly defaultAction?: string;
  readonly actions: readonly CliAction[];
}): CliCommand {
  const { usage, actions } = spec;
  const options = flagOptions(actions.flatMap((action) => action.flags ?? []));
  const names = actions.map((action) => action.name);
  return {
    name: spec.name,
    synopsis: spec.synopsis,
    usage,
    subcommands: actions,
    async run(argv, io) {
      const separator = argv.indexOf('--');
      const own = separator === -1 ? argv : argv.slice(0, separator);
      const after = separator === -1 ? [] : argv.slice(separator + 1);
      const { values, positionals } = parseCommandArgs({ argv: own, usage, options });
      // The action is named before `--`: what follows is its operands (or passthrough), never an action, so
      // `toolbus files -- get` neither runs get nor hands "get" to the default action.
      if (positionals.length === 0 && after.length > 0)
        throw new UsageError({ message: `name an action before -- (${names.join(', ')}).`, usage });
      const [name = spec.defaultAction, ...named] = positionals;
      if (name === undefined)
        throw new UsageError({ message: `name an action (${names.join(', ')}).`, usage });
      const action = actions.find((candidate) => candidate.name === name);
      if (action === undefined) {
        const suggestion = closestName(name, names);
        throw new UsageError({
          message: `unknown action "${name}"${suggestion ? ` — did you mean "${suggestion}"?` : '.'}`,
          usage,
        });
      }
      const operands = action.passthrough === undefined ? [...named, ...after] : named;
      const passthrough = action.passthrough === undefined ? [] : after;
      checkOperands(action, operands, usage);
      return action.run({ operands, passthrough, values: values as FlagValues<readonly CliFlag[]>, io });
    },
  };
}

function checkOperands(action: CliAction, operands: readonly string[], usage: string): void {
  const wanted = action.operands;
  if (wanted !== undefined && !wanted.optional && operands.length < (wanted.least ?? 1)) {
    throw new UsageError({ message: `${action.name} needs ${wanted.first}.`, usage });
  }
  const extra = operands.slice(wanted === undefined ? 0 : (wanted.most ?? 1));
  if (extra.length > 0) throw new UsageError({ message: `unexpected "${extra.join(' ')}".`, usage });
}

import { type ParseArgsConfig, parseArgs } from 'node:util';
import { closestName } from './closest-name.ts';
import { UsageError } from './usage-error.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * `parseArgs` in strict mode for one command: an unknown flag or a missing value becomes a {@link UsageError}
 * naming the closest valid flag (`--modle` → "did you mean --model?") and carrying the command's usage.
 */
export function parseCommandArgs<const T extends Options>(input: {
  readonly argv: readonly string[];
  readonly options: T;
  readonly usage: string;
  /** Positionals allowed (default true). */
  readonly positionals?: boolean;
}) {
  try {
    return parseArgs({
      args: withNegativeValues(input.argv, input.options),
      options: input.options,
      allowPositionals: input.positionals ?? true,
      strict: true,
    });
  } catch (error) {
    const message = (error as Error).message;
    const unknown = /Unknown option '(-{1,2}[^']+)'/.exec(message)?.[1];
    if (unknown !== undefined && /^-\d/.test(unknown)) {
      // A negative number where an operand belongs (`config set key -5`): parseArgs reads it as a short flag.
      throw new UsageError({
        message: `${unknown} is read as an option: to give a value that starts with -, put it after -- (-- ${unknown}).`,
        usage: input.usage,
      });
    }
    if (unknown !== undefined) {
      const names = Object.keys(input.options).map((name) => `--${name}`);
      const suggestion = closestName(unknown.split('=')[0] as string, names);
      throw new UsageError({
        message: `unknown option ${unknown}${suggestion ? ` — did you mean ${suggestion}?` : ''}`,
        usage: input.usage,
      });
    }
    const missing = /Option '(-{1,2}[^ ']+)[^']*' argument missing/.exec(message)?.[1];
    if (missing !== undefined) {
      throw new UsageError({ message: `${missing} needs a value`, usage: input.usage });
    }
    throw new UsageError({ message: message.replace(/\.?\s*To specify .*$/s, ''), usage: input.usage });
  }
}

/**
 * `--port -1` as `--port=-1`: parseArgs takes a value that starts with a dash for another flag and refuses it as
 * ambiguous, so the user would hear about a forgotten value instead of what the flag takes.
 */
function withNegativeValues(argv: readonly string[], options: Options): string[] {
  const args: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] as string;
    const next = argv[index + 1];
    if (argument === '--') {
      args.push(...argv.slice(index));
      break;
    }
    const name = argument.startsWith('--') ? argument.slice(2) : undefined;
    if (name !== undefined && options[name]?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      args.push(`${argument}=${next}`);
      index += 1;
    } else args.push(argument);
  }
  return args;
}

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
      args: [...input.argv],
      options: input.options,
      allowPositionals: input.positionals ?? true,
      strict: true,
    });
  } catch (error) {
    const message = (error as Error).message;
    const unknown = /Unknown option '(-{1,2}[^']+)'/.exec(message)?.[1];
    if (unknown !== undefined) {
      const names = Object.keys(input.options).map((name) => `--${name}`);
      const suggestion = closestName(unknown.split('=')[0] as string, names);
      throw new UsageError({
        message: `unknown option ${unknown}${suggestion ? ` — did you mean ${suggestion}?` : ''}`,
        usage: input.usage,
      });
    }
    throw new UsageError({ message: message.replace(/\.?\s*To specify .*$/s, ''), usage: input.usage });
  }
}

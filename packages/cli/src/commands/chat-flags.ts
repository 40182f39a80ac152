import { BUILT_IN_TOOLS, BUILT_IN_TOOLS_BY_NAME } from '@toolbus/core';
import { closestName } from '../closest-name.ts';
import { UsageError } from '../usage-error.ts';

/** The flags of `toolbus chat` that {@link parseChatFlags} checks, as parseArgs returns them. */
export interface ChatFlagValues {
  readonly 'max-cycles'?: string | undefined;
  readonly 'model-timeout'?: string | undefined;
  readonly tools?: string | undefined;
  readonly continue?: boolean | undefined;
  readonly chat?: string | undefined;
}

/** `toolbus chat`'s checked flags. */
export interface ChatFlags {
  readonly maxCycles: number | undefined;
  readonly timeoutSeconds: number;
  readonly allowedToolIds: string[] | undefined;
}

/** Checks chat's numeric and tool flags, each refusal a {@link UsageError} that says what the flag takes. */
export function parseChatFlags(options: {
  readonly values: ChatFlagValues;
  readonly usage: string;
}): ChatFlags {
  const { values, usage } = options;
  const maxCycles = values['max-cycles'] === undefined ? undefined : Number(values['max-cycles']);
  if (maxCycles !== undefined && (!Number.isInteger(maxCycles) || maxCycles < 1 || maxCycles > 50)) {
    throw new UsageError({ message: '--max-cycles takes a whole number from 1 to 50.', usage });
  }
  const timeoutSeconds = values['model-timeout'] === undefined ? 60 : Number(values['model-timeout']);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) {
    throw new UsageError({ message: '--model-timeout takes a number of seconds above 0.', usage });
  }
  if (values.continue && values.chat !== undefined) {
    throw new UsageError({
      message: '--continue and --chat both name the chat to go on with: give one of them.',
      usage,
    });
  }
  const allowedToolIds = values.tools === undefined ? undefined : toolIdsFromNames(values.tools, usage);
  return { maxCycles, timeoutSeconds, allowedToolIds };
}

/** Built-in tool ids from `--tools`' names; an unknown name is refused with the closest known one. */
function toolIdsFromNames(list: string, usage: string): string[] {
  const names = list
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return names.map((name) => {
    const entry = BUILT_IN_TOOLS_BY_NAME.get(name);
    if (!entry) {
      const known = BUILT_IN_TOOLS.map((tool) => tool.name);
      const suggestion = closestName(name, known);
      throw new UsageError({
        message: `--tools: unknown tool "${name}"${suggestion ? ` — did you mean "${suggestion}"?` : '.'} Built-in tools: ${known.join(', ')}.`,
        usage,
      });
    }
    return entry.id;
  });
}

import type { CliIo } from './cli-io.ts';

/** How a renderer writes to the CLI's stdout: in place when it is a terminal, in colour unless NO_COLOR is set. */
export interface TerminalOutput {
  readonly write: (text: string) => void;
  /** stdout is a terminal: lines may be redrawn in place. */
  readonly interactive: boolean;
  /** ANSI colours: only on a terminal, and never when NO_COLOR is set (https://no-color.org). */
  readonly color: boolean;
}

/** The one place the CLI decides how its renderers (chat and research) write to stdout. */
export function terminalOutput(io: CliIo): TerminalOutput {
  const interactive = Boolean(io.stdout.isTTY);
  return {
    write: (text) => {
      io.stdout.write(text);
    },
    interactive,
    color: interactive && !io.env.NO_COLOR,
  };
}

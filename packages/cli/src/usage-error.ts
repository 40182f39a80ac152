import { ToolbusError } from '@toolbus/spec';

/** A wrong command line (unknown flag, missing argument): printed once with the command's usage, exit 2. */
export class UsageError extends ToolbusError {
  static override readonly errorName = 'UsageError';

  /** The usage text of the command that was misused, printed after the message. */
  readonly usage: string | undefined;

  constructor(options: { readonly message: string; readonly usage?: string }) {
    super({ code: 'cli_usage', message: options.message });
    this.usage = options.usage;
  }
}

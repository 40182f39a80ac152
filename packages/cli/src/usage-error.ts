import { hasErrorMarker, ToolbusError } from '@toolbus/spec';

const usageErrorMarker = Symbol.for('toolbus.error.UsageError');

/** A wrong command line (unknown flag, missing argument): printed once with the command's usage, exit 2. */
export class UsageError extends ToolbusError {
  readonly [usageErrorMarker] = true;
  /** The usage text of the command that was misused, printed after the message. */
  readonly usage: string | undefined;

  constructor(options: { readonly message: string; readonly usage?: string }) {
    super({ code: 'cli_usage', message: options.message });
    this.name = 'UsageError';
    this.usage = options.usage;
  }

  /** True for a {@link UsageError} from any copy of the package. */
  static override isInstance(error: unknown): error is UsageError {
    return hasErrorMarker(error, usageErrorMarker);
  }
}

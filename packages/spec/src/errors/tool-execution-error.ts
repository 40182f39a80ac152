import { ToolbusError } from './toolbus-error.ts';

/** Options for {@link ToolExecutionError}. */
export interface ToolExecutionErrorOptions {
  readonly message: string;
  /** When true the runner also streams an `error` packet to the UI (e.g. an image that failed to render). */
  readonly emitErrorPacket?: boolean;
  readonly code?: string;
  readonly cause?: unknown;
}

/** An unexpected failure while a tool ran. The model reads its message; the UI may get an error packet. */
export class ToolExecutionError extends ToolbusError {
  static override readonly errorName: string = 'ToolExecutionError';

  readonly emitErrorPacket: boolean;

  constructor(options: ToolExecutionErrorOptions) {
    super({ code: options.code ?? 'tool_execution_error', message: options.message, cause: options.cause });
    this.emitErrorPacket = options.emitErrorPacket ?? false;
  }
}

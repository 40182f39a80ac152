import { ToolbusError } from './toolbus-error.ts';

/** Options for {@link ToolCallError}. */
export interface ToolCallErrorOptions {
  /** Full technical detail, for logs and traces. */
  readonly message: string;
  /** What the model reads: what was wrong and how to call the tool correctly next time. */
  readonly modelMessage: string;
  readonly code?: string;
  readonly cause?: unknown;
}

/**
 * An expected, recoverable failure of a tool call (bad arguments, a 4xx from an API, a missing file). It carries
 * two messages: detail for people, and a corrective message for the model so it can fix the call next cycle.
 */
export class ToolCallError extends ToolbusError {
  static override readonly errorName: string = 'ToolCallError';

  readonly modelMessage: string;

  constructor(options: ToolCallErrorOptions) {
    super({ code: options.code ?? 'tool_call_error', message: options.message, cause: options.cause });
    this.modelMessage = options.modelMessage;
  }
}

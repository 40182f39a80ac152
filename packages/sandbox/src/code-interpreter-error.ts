import { ToolbusError } from '@toolbus/spec';

/** Options for {@link CodeInterpreterError}. */
export interface CodeInterpreterErrorOptions {
  /** `code_interpreter_unreachable` (no answer), `code_interpreter_http` (an error status),
   * `code_interpreter_protocol` (an answer we cannot read). */
  readonly code: 'code_interpreter_unreachable' | 'code_interpreter_http' | 'code_interpreter_protocol';
  readonly message: string;
  readonly status?: number;
  /** The service's own error code, e.g. `file_not_found`, `queue_full`; or a pool's: `session_lost`, `file_lost`
   * (the server holding it stopped answering). */
  readonly serviceCode?: string;
  readonly cause?: unknown;
}

/** A request to the code-execution service failed. */
export class CodeInterpreterError extends ToolbusError<CodeInterpreterErrorOptions['code']> {
  static override readonly errorName = 'CodeInterpreterError';

  readonly status: number | undefined;
  readonly serviceCode: string | undefined;

  constructor(options: CodeInterpreterErrorOptions) {
    super(options);
    this.status = options.status;
    this.serviceCode = options.serviceCode;
  }
}

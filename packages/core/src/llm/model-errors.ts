import { ToolbusError } from '@toolbus/spec';

/**
 * The model could not be configured: an unknown provider, a malformed model string or base URL, or a hosted
 * provider whose API key variable is not set. `variable` names the environment variable; its value never appears.
 */
export class ModelConfigurationError extends ToolbusError {
  static override readonly errorName = 'ModelConfigurationError';

  readonly variable: string | undefined;

  constructor(options: { message: string; variable?: string; cause?: unknown }) {
    super({ code: 'model_configuration', message: options.message, cause: options.cause });
    this.variable = options.variable;
  }
}

/** Nothing answered at the model endpoint (connection refused, DNS failure, timeout before any HTTP answer). */
export class ModelUnavailableError extends ToolbusError {
  static override readonly errorName = 'ModelUnavailableError';

  /** Origin that was tried, e.g. `http://localhost:11434`. */
  readonly endpoint: string;

  constructor(options: { message: string; endpoint: string; cause?: unknown }) {
    super({ code: 'model_unavailable', message: options.message, cause: options.cause });
    this.endpoint = options.endpoint;
  }
}

/**
 * The model endpoint answered with an HTTP error. `code` tells the kind: `model_authentication_failed` (401/403),
 * `model_not_found` (404), `model_rate_limited` (429), `model_request_failed` (anything else).
 */
export class ModelRequestError extends ToolbusError {
  static override readonly errorName = 'ModelRequestError';

  readonly statusCode: number | undefined;
  /** Whether trying again could succeed (429, 408, 409, 5xx). */
  readonly retryable: boolean;

  constructor(options: { message: string; statusCode?: number; retryable: boolean; cause?: unknown }) {
    super({ code: requestErrorCode(options.statusCode), message: options.message, cause: options.cause });
    this.statusCode = options.statusCode;
    this.retryable = options.retryable;
  }
}

function requestErrorCode(statusCode: number | undefined): string {
  if (statusCode === 401 || statusCode === 403) return 'model_authentication_failed';
  if (statusCode === 404) return 'model_not_found';
  if (statusCode === 429) return 'model_rate_limited';
  return 'model_request_failed';
}

/** Where a stall happened: waiting for the first chunk, or between two chunks. */
export type ModelStallPhase = 'first-chunk' | 'between-chunks';

/** The model stream went silent for longer than the allowed timeout. */
export class ModelStallError extends ToolbusError {
  static override readonly errorName = 'ModelStallError';

  readonly phase: ModelStallPhase;
  readonly timeoutMs: number;

  constructor(options: { phase: ModelStallPhase; timeoutMs: number }) {
    super({
      code: 'model_stall',
      message:
        options.phase === 'first-chunk'
          ? `the model sent nothing within ${options.timeoutMs} ms`
          : `the model stream stalled: no chunk for ${options.timeoutMs} ms`,
    });
    this.phase = options.phase;
    this.timeoutMs = options.timeoutMs;
  }
}

/** The stream broke after it started: a dropped connection, an error event from the provider, unreadable data. */
export class ModelStreamError extends ToolbusError {
  static override readonly errorName = 'ModelStreamError';

  readonly retryable: boolean;
  /** Set when the connection closed before the answer ended: fetch's reason ("terminated: other side closed" from undici, "terminated: the server closed the connection before the body ended" from createNodeHttpFetch). */
  readonly connectionClosed: string | undefined;

  constructor(options: { message: string; retryable: boolean; cause?: unknown; connectionClosed?: string }) {
    super({ code: 'model_stream_error', message: options.message, cause: options.cause });
    this.retryable = options.retryable;
    this.connectionClosed = options.connectionClosed;
  }
}

/** The caller's abort signal stopped the model step. */
export class ModelAbortedError extends ToolbusError {
  static override readonly errorName = 'ModelAbortedError';

  constructor(options: { cause?: unknown } = {}) {
    super({
      code: 'model_aborted',
      message: 'the model step was aborted by the caller',
      cause: options.cause,
    });
  }
}

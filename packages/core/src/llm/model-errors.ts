import { hasErrorMarker, ToolbusError } from '@toolbus/spec';

const modelConfigurationErrorMarker = Symbol.for('toolbus.error.ModelConfigurationError');
const modelUnavailableErrorMarker = Symbol.for('toolbus.error.ModelUnavailableError');
const modelRequestErrorMarker = Symbol.for('toolbus.error.ModelRequestError');
const modelStallErrorMarker = Symbol.for('toolbus.error.ModelStallError');
const modelStreamErrorMarker = Symbol.for('toolbus.error.ModelStreamError');
const modelAbortedErrorMarker = Symbol.for('toolbus.error.ModelAbortedError');

/**
 * The model could not be configured: an unknown provider, a malformed model string or base URL, or a hosted
 * provider whose API key variable is not set. `variable` names the environment variable; its value never appears.
 */
export class ModelConfigurationError extends ToolbusError {
  readonly variable: string | undefined;
  readonly [modelConfigurationErrorMarker] = true;

  constructor(options: { message: string; variable?: string; cause?: unknown }) {
    super({ code: 'model_configuration', message: options.message, cause: options.cause });
    this.name = 'ModelConfigurationError';
    this.variable = options.variable;
  }

  static override isInstance(error: unknown): error is ModelConfigurationError {
    return hasErrorMarker(error, modelConfigurationErrorMarker);
  }
}

/** Nothing answered at the model endpoint (connection refused, DNS failure, timeout before any HTTP answer). */
export class ModelUnavailableError extends ToolbusError {
  /** Origin that was tried, e.g. `http://localhost:11434`. */
  readonly endpoint: string;
  readonly [modelUnavailableErrorMarker] = true;

  constructor(options: { message: string; endpoint: string; cause?: unknown }) {
    super({ code: 'model_unavailable', message: options.message, cause: options.cause });
    this.name = 'ModelUnavailableError';
    this.endpoint = options.endpoint;
  }

  static override isInstance(error: unknown): error is ModelUnavailableError {
    return hasErrorMarker(error, modelUnavailableErrorMarker);
  }
}

/**
 * The model endpoint answered with an HTTP error. `code` tells the kind: `model_authentication_failed` (401/403),
 * `model_not_found` (404), `model_rate_limited` (429), `model_request_failed` (anything else).
 */
export class ModelRequestError extends ToolbusError {
  readonly statusCode: number | undefined;
  /** Whether trying again could succeed (429, 408, 409, 5xx). */
  readonly retryable: boolean;
  readonly [modelRequestErrorMarker] = true;

  constructor(options: { message: string; statusCode?: number; retryable: boolean; cause?: unknown }) {
    super({ code: requestErrorCode(options.statusCode), message: options.message, cause: options.cause });
    this.name = 'ModelRequestError';
    this.statusCode = options.statusCode;
    this.retryable = options.retryable;
  }

  static override isInstance(error: unknown): error is ModelRequestError {
    return hasErrorMarker(error, modelRequestErrorMarker);
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
  readonly phase: ModelStallPhase;
  readonly timeoutMs: number;
  readonly [modelStallErrorMarker] = true;

  constructor(options: { phase: ModelStallPhase; timeoutMs: number }) {
    super({
      code: 'model_stall',
      message:
        options.phase === 'first-chunk'
          ? `the model sent nothing within ${options.timeoutMs} ms`
          : `the model stream stalled: no chunk for ${options.timeoutMs} ms`,
    });
    this.name = 'ModelStallError';
    this.phase = options.phase;
    this.timeoutMs = options.timeoutMs;
  }

  static override isInstance(error: unknown): error is ModelStallError {
    return hasErrorMarker(error, modelStallErrorMarker);
  }
}

/** The stream broke after it started: a dropped connection, an error event from the provider, unreadable data. */
export class ModelStreamError extends ToolbusError {
  readonly retryable: boolean;
  /** Set when the connection closed before the answer ended: fetch's reason ("terminated: other side closed" from undici, "terminated: the server closed the connection before the body ended" from createNodeHttpFetch). */
  readonly connectionClosed: string | undefined;
  readonly [modelStreamErrorMarker] = true;

  constructor(options: { message: string; retryable: boolean; cause?: unknown; connectionClosed?: string }) {
    super({ code: 'model_stream_error', message: options.message, cause: options.cause });
    this.name = 'ModelStreamError';
    this.retryable = options.retryable;
    this.connectionClosed = options.connectionClosed;
  }

  static override isInstance(error: unknown): error is ModelStreamError {
    return hasErrorMarker(error, modelStreamErrorMarker);
  }
}

/** The caller's abort signal stopped the model step. */
export class ModelAbortedError extends ToolbusError {
  readonly [modelAbortedErrorMarker] = true;

  constructor(options: { cause?: unknown } = {}) {
    super({
      code: 'model_aborted',
      message: 'the model step was aborted by the caller',
      cause: options.cause,
    });
    this.name = 'ModelAbortedError';
  }

  static override isInstance(error: unknown): error is ModelAbortedError {
    return hasErrorMarker(error, modelAbortedErrorMarker);
  }
}

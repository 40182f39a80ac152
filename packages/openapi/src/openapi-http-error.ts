import { ToolCallError } from '@toolbus/spec';

/** Options for {@link OpenApiHttpError}. */
export interface OpenApiHttpErrorOptions {
  readonly status: number;
  readonly message: string;
  readonly modelMessage: string;
}

/**
 * A non-2xx answer from the API. It is a `ToolCallError` (the model reads `modelMessage`, which says what to fix
 * for a 4xx) that also carries the HTTP `status` for callers and traces. Code: `openapi_http_error`.
 */
export class OpenApiHttpError extends ToolCallError {
  static override readonly errorName = 'OpenApiHttpError';

  readonly status: number;

  constructor(options: OpenApiHttpErrorOptions) {
    super({ code: 'openapi_http_error', message: options.message, modelMessage: options.modelMessage });
    this.status = options.status;
  }
}

import { ToolbusError } from '@toolbus/spec';

/** Options for {@link OpenApiAuthError}. */
export interface OpenApiAuthErrorOptions {
  readonly message: string;
  /** Defaults to `openapi_auth_invalid`. */
  readonly code?: string;
}

/**
 * Stored credentials that do not fit the document (an API key with no location and no matching security scheme,
 * a named scheme that does not exist, two credentials fighting over one header). Thrown when tools are created;
 * the message names schemes and header names, never secret values.
 */
export class OpenApiAuthError extends ToolbusError {
  static override readonly errorName = 'OpenApiAuthError';

  constructor(options: OpenApiAuthErrorOptions) {
    super({ code: options.code ?? 'openapi_auth_invalid', message: options.message });
  }
}

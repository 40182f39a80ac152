import { ToolbusError } from '@toolbus/spec';

/** Options for {@link OpenApiDocumentError}. */
export interface OpenApiDocumentErrorOptions {
  /** A readable explanation, with the parser's details when it gave any. */
  readonly message: string;
  /** Defaults to `openapi_document_invalid`. */
  readonly code?: string;
  readonly cause?: unknown;
}

/**
 * An OpenAPI or Swagger document that cannot become tools: not JSON/YAML, not an OpenAPI 3.0/3.1 or Swagger 2.0
 * document, failing validation, or with references that cannot be resolved. Thrown when tools are created,
 * never while they run, so that an administrator sees the problem when adding the API.
 */
export class OpenApiDocumentError extends ToolbusError {
  static override readonly errorName = 'OpenApiDocumentError';

  constructor(options: OpenApiDocumentErrorOptions) {
    super({
      code: options.code ?? 'openapi_document_invalid',
      message: options.message,
      cause: options.cause,
    });
  }
}

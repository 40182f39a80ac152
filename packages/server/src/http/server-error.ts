import { ToolbusError, type ToolbusErrorOptions } from '@toolbus/spec';

/** Every code a request can be refused with, and the HTTP status it is answered with. */
export const serverErrorStatus = {
  invalid_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  body_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  not_available: 501,
  unavailable: 503,
} as const;

/** One of the keys of {@link serverErrorStatus}. */
export type ServerErrorCode = keyof typeof serverErrorStatus;

/** Options for {@link ServerError}. */
export interface ServerErrorOptions extends ToolbusErrorOptions<ServerErrorCode> {
  /** The request field at fault (`body.content`, `query.after`, `header.last-event-id`), when one is. */
  readonly field?: string;
  /** Seconds until a refused request may be retried (429, 503). */
  readonly retryAfterSeconds?: number;
}

/**
 * A request the server refuses, with the status it is answered with. Its message names the field at fault and is
 * safe to show: it never holds a header value, a key or a token.
 */
export class ServerError extends ToolbusError<ServerErrorCode> {
  static override readonly errorName = 'ServerError';

  readonly status: number;
  readonly field: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(options: ServerErrorOptions) {
    super(options);
    this.status = serverErrorStatus[options.code];
    this.field = options.field;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/**
 * The 404 for a request field that names nothing the caller may see (`path.fileId`, `query.link`). Its message
 * starts with the field, as every refusal's does: `path.fileId: no file "f_1" of yours.`
 */
export function notFoundError(field: string, detail: string): ServerError {
  return new ServerError({ code: 'not_found', field, message: `${field}: ${detail}` });
}

import { omitUndefined, ToolbusError } from '@toolbus/spec';

/** Options of a {@link ToolbusClientError}. */
export interface ToolbusClientErrorOptions {
  /** The server's error code (`not_found`, `unauthorized`, …), or `network_error` / `stream_failed`. */
  readonly code: string;
  readonly message: string;
  /** The HTTP status, when the server answered. */
  readonly status?: number;
  /** The input the server named as wrong (`body.title`, `header.x-csrf-token`). */
  readonly field?: string;
  /** Seconds the server asked the caller to wait (a 429's `Retry-After`). */
  readonly retryAfterSeconds?: number;
  readonly cause?: unknown;
}

/** A request the server refused, or that never reached it. The message is the server's, naming the field. */
export class ToolbusClientError extends ToolbusError {
  static override readonly errorName = 'ToolbusClientError';

  readonly status: number | undefined;
  readonly field: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(options: ToolbusClientErrorOptions) {
    super(options);
    this.status = options.status;
    this.field = options.field;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** The error a failed response stands for (the server's `{ error: { code, message, field } }` body when present). */
export async function errorOfResponse(response: Response): Promise<ToolbusClientError> {
  let code = `http_${response.status}`;
  let message = `The server answered ${response.status}.`;
  let field: string | undefined;
  try {
    const body = (await response.json()) as {
      error?: { code?: unknown; message?: unknown; field?: unknown };
    };
    if (typeof body.error?.code === 'string') code = body.error.code;
    if (typeof body.error?.message === 'string') message = body.error.message;
    if (typeof body.error?.field === 'string') field = body.error.field;
  } catch {
    // Not JSON (a proxy's page): the status says enough.
  }
  const retryAfter = Number(response.headers.get('retry-after'));
  return new ToolbusClientError({
    code,
    message,
    status: response.status,
    ...omitUndefined({ field }),
    ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterSeconds: retryAfter } : {}),
  });
}

/** A failure with an HTTP status, sent to the client as `{error: {code, message}}`. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(options: { status: number; code: string; message: string }) {
    super(options.message);
    this.name = 'HttpError';
    this.status = options.status;
    this.code = options.code;
  }
}

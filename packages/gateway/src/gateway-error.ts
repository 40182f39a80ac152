import type { ServerResponse } from 'node:http';

/** Which wire format a route answers errors in. */
export type ErrorDialect = 'openai' | 'anthropic';

const anthropicTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/** The error body a client of that API expects: OpenAI's `{error:{message,type,param,code}}`, Anthropic's `{type:'error',error:{type,message}}`. */
export function errorBody(
  dialect: ErrorDialect,
  status: number,
  message: string,
  code?: string,
  param?: string,
): unknown {
  if (dialect === 'anthropic') {
    return {
      type: 'error',
      error: {
        type: anthropicTypes[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error'),
        message,
      },
    };
  }
  const type =
    status === 401
      ? 'invalid_request_error'
      : status === 429
        ? 'rate_limit_exceeded'
        : status >= 500
          ? 'server_error'
          : 'invalid_request_error';
  // OpenAI names a rate limit in `code` too (`rate_limit_exceeded`), which clients match on to back off.
  const named = code ?? (status === 429 ? 'rate_limit_exceeded' : null);
  return { error: { message, type, param: param ?? null, code: named } };
}

/** Answers with an error in the route's format (and closes the connection when the request body was not read). */
export function sendError(
  response: ServerResponse,
  options: {
    dialect: ErrorDialect;
    status: number;
    message: string;
    code?: string;
    /** The request field the error is about (OpenAI's `param`). */
    param?: string;
    close?: boolean;
    headers?: Record<string, string>;
  },
): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body = JSON.stringify(
    errorBody(options.dialect, options.status, options.message, options.code, options.param),
  );
  response.writeHead(options.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...(options.close ? { connection: 'close' } : {}),
    ...options.headers,
  });
  response.end(body);
}

/**
 * An error once a stream's head is sent: the error as the stream's last event, the way each API reports an error
 * mid-stream (OpenAI a `data:` event with `{error}`, which the `openai` SDK throws as an `APIError`; Anthropic an
 * `event: error`), then the end. Before the head, the plain error answer. Runs once per failed request, never per
 * chunk.
 */
export function sendErrorInStream(
  response: ServerResponse,
  options: { dialect: ErrorDialect; status: number; message: string; code?: string },
): void {
  if (!response.headersSent) {
    sendError(response, options);
    return;
  }
  if (response.writableEnded || response.destroyed) return;
  const body = JSON.stringify(errorBody(options.dialect, options.status, options.message, options.code));
  response.end(options.dialect === 'anthropic' ? `event: error\ndata: ${body}\n\n` : `data: ${body}\n\n`);
}

import type { ServerResponse } from 'node:http';

/** Which wire format a route answers errors in. */
export type ErrorDialect = 'openai' | 'anthropic';

const anthropicTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

/** The error body a client of that API expects: OpenAI's `{error:{message,type,param,code}}`, Anthropic's `{type:'error',error:{type,message}}`. */
export function errorBody(dialect: ErrorDialect, status: number, message: string, code?: string): unknown {
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
  return { error: { message, type, param: null, code: code ?? null } };
}

/** Answers with an error in the route's format (and closes the connection when the request body was not read). */
export function sendError(
  response: ServerResponse,
  options: {
    dialect: ErrorDialect;
    status: number;
    message: string;
    code?: string;
    close?: boolean;
    headers?: Record<string, string>;
  },
): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body = JSON.stringify(errorBody(options.dialect, options.status, options.message, options.code));
  response.writeHead(options.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...(options.close ? { connection: 'close' } : {}),
    ...options.headers,
  });
  response.end(body);
}

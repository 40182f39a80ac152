import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from './http-error.ts';

/** Reads a JSON object body of at most `maxBytes`; 415, 413 or 400 otherwise. */
export async function readJsonObject(
  request: IncomingMessage,
  maxBytes: number,
): Promise<Record<string, unknown>> {
  const type = request.headers['content-type'] ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new HttpError({ status: 415, code: 'unsupported_media_type', message: 'send application/json' });
  }
  const declared = Number(request.headers['content-length'] ?? '0');
  if (declared > maxBytes) {
    throw new HttpError({
      status: 413,
      code: 'body_too_large',
      message: `request bodies are limited to ${maxBytes} bytes`,
    });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      throw new HttpError({
        status: 413,
        code: 'body_too_large',
        message: `request bodies are limited to ${maxBytes} bytes`,
      });
    }
    chunks.push(chunk as Buffer);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError({ status: 400, code: 'invalid_json', message: 'the body is not valid JSON' });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new HttpError({ status: 400, code: 'invalid_request', message: 'the body must be a JSON object' });
  }
  return parsed as Record<string, unknown>;
}

/** Sends a JSON response. */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  response.end(text);
}

/** Sends `{error: {code, message}}`; anything not an HttpError is a 500 with a generic message (details stay in the log). */
export function sendError(response: ServerResponse, error: unknown): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  if (error instanceof HttpError) {
    sendJson(response, error.status, { error: { code: error.code, message: error.message } });
    return;
  }
  sendJson(response, 500, {
    error: { code: 'internal_error', message: 'the interpreter failed; see its log' },
  });
}

/** A signal aborted when the client goes away before the answer is complete (the run is then killed). */
export function abortOnClose(response: ServerResponse): AbortSignal {
  const controller = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) controller.abort();
  });
  return controller.signal;
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ErrorDialect, sendError } from './gateway-error.ts';
import type { GatewayCaller, GatewayOptions } from './gateway-options.ts';
import { RateLimiter } from './rate-limiter.ts';
import { RequestTooLargeError, readRequestBody } from './read-request-body.ts';
import type { RequestSeen } from './request-log.ts';

/**
 * What every route's request passes before it is read: the caller's key, the caller's request limit, the body's
 * size cap and its content type, in that order (a refused key costs no body read). It resolves to the body, and notes
 * the caller's id in what is seen of the request (for its log line); a refusal is answered here, in the route's
 * error format, and `admit` resolves to undefined.
 */
export function createAdmission(options: GatewayOptions) {
  const maxRequestBytes = options.maxRequestBytes ?? 16 * 1024 * 1024;
  const limiter =
    options.requestsPerMinute !== undefined ? new RateLimiter(options.requestsPerMinute) : undefined;
  return async function admit(
    request: IncomingMessage,
    response: ServerResponse,
    dialect: ErrorDialect,
    seen: RequestSeen,
  ): Promise<Buffer | undefined> {
    let caller: GatewayCaller | undefined;
    if (options.authenticate !== undefined) {
      caller = await options.authenticate(keyOf(request));
      seen.callerId = caller?.id;
      if (caller === undefined) {
        sendError(response, {
          dialect,
          status: 401,
          code: 'invalid_api_key',
          message: 'A valid toolbus API key is required (Authorization: Bearer <key>, or x-api-key).',
          close: true,
        });
        return undefined;
      }
    }
    if (limiter !== undefined) {
      const wait = limiter.take(caller?.id ?? 'anonymous');
      if (wait > 0) {
        sendError(response, {
          dialect,
          status: 429,
          message: `Too many requests: the limit is ${options.requestsPerMinute} a minute; try again in ${wait} s.`,
          headers: { 'retry-after': String(wait) },
          close: true,
        });
        return undefined;
      }
    }
    let bytes: Buffer;
    try {
      bytes = await readRequestBody(request, maxRequestBytes);
    } catch (error) {
      if (error instanceof RequestTooLargeError) {
        sendError(response, { dialect, status: 413, message: error.message, close: true });
        return undefined;
      }
      throw error;
    }
    const type = request.headers['content-type'];
    if (request.method === 'POST' && !isJsonContentType(type)) {
      sendError(response, {
        dialect,
        status: 415,
        message: `The request body must be JSON, sent as Content-Type: application/json (it came as ${printable(type ?? '')}).`,
      });
      return undefined;
    }
    return bytes;
  };
}

// No content type is taken as JSON (a bare `curl --data-binary`); a declared one must be JSON.
function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined || header.trim() === '') return true;
  const media = (header.split(';')[0] ?? '').trim().toLowerCase();
  return media === 'application/json' || media.endsWith('+json');
}

// A header a client sent, as it can be quoted in an error message: printable ASCII, 100 characters at most.
function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, ' ').slice(0, 100);
}

function keyOf(request: IncomingMessage): string | undefined {
  const authorization = request.headers.authorization;
  const bearer = typeof authorization === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
  if (bearer?.[1] !== undefined) return bearer[1];
  const key = request.headers['x-api-key'];
  return typeof key === 'string' && key !== '' ? key : undefined;
}

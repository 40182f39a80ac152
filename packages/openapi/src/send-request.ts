import { type FetchFunction, omitUndefined, ToolExecutionError } from '@toolbus/spec';
import type { BuiltRequest } from './build-request.ts';

const maxRedirects = 5;
const idempotentMethods = new Set(['GET', 'HEAD', 'OPTIONS']);
const staleConnectionCodes = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/** A network failure (fetch's TypeError) caused by the connection dropping, not by the guard or a refusal. */
function isStaleConnection(error: unknown): boolean {
  if (!(error instanceof TypeError)) return false;
  const cause = (error as { cause?: { code?: unknown } }).cause;
  return typeof cause?.code === 'string' && staleConnectionCodes.has(cause.code);
}

/** Options for {@link sendRequest}. */
export interface SendRequestOptions {
  readonly fetch: FetchFunction;
  readonly request: BuiltRequest;
  readonly signal: AbortSignal;
  /** When credentials are configured, a redirect to another origin is refused instead of followed. */
  readonly hasCredentials: boolean;
}

/**
 * Sends a built request and follows redirects itself (at most 5): a same-origin redirect keeps the credentials;
 * a redirect to another origin is followed only when there are none, because fetch strips `Authorization` across
 * origins but not API-key headers or query parameters. 303 (and 301/302 after a non-GET) continue as GET. A read
 * whose pooled connection was dropped under it is sent once more.
 */
export async function sendRequest(options: SendRequestOptions): Promise<Response> {
  const { request } = options;
  let url = request.url;
  let method = request.method;
  let body = request.body;
  const headers = new Headers(request.headers);
  for (let hop = 0; ; hop += 1) {
    const init: RequestInit = omitUndefined({
      method,
      headers,
      body,
      redirect: 'manual' as const,
      signal: options.signal,
    });
    const response = await options.fetch(url, init).catch((error: unknown) => {
      // A pooled keep-alive connection the server closed just as it was reused: safe to send a read again, once.
      if (!isStaleConnection(error) || !idempotentMethods.has(method) || options.signal.aborted) throw error;
      return options.fetch(url, init);
    });
    const location = response.headers.get('location');
    if (![301, 302, 303, 307, 308].includes(response.status) || location === null) return response;
    await response.body?.cancel().catch(() => {});
    if (hop >= maxRedirects) {
      throw new ToolExecutionError({
        code: 'openapi_too_many_redirects',
        message: `More than ${maxRedirects} redirects.`,
      });
    }
    const next = new URL(location, url);
    if (next.protocol !== 'http:' && next.protocol !== 'https:') {
      throw new ToolExecutionError({
        code: 'openapi_redirect_refused',
        message: `Redirect to a ${next.protocol} URL refused.`,
      });
    }
    if (next.origin !== url.origin && options.hasCredentials) {
      throw new ToolExecutionError({
        code: 'openapi_redirect_refused',
        message: `The API redirected to another origin (${next.origin}); not followed, to keep the stored credentials from leaking there.`,
      });
    }
    if (
      response.status === 303 ||
      ((response.status === 301 || response.status === 302) && method !== 'GET' && method !== 'HEAD')
    ) {
      method = method === 'HEAD' ? 'HEAD' : 'GET';
      body = undefined;
      headers.delete('content-type');
    }
    url = next;
  }
}

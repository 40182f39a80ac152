import type { Context } from 'hono';
import { ServerError } from '../http/server-error.ts';
import { isLoopbackHostHeader } from './request-guard.ts';

/**
 * The origin browsers reach the server at, checked: an http(s) URL with nothing after the host (a trailing `/` is
 * allowed). Throws `invalid_request` naming `publicOrigin` otherwise.
 */
export function parsePublicOrigin(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (
    url === undefined ||
    (url.protocol !== 'https:' && url.protocol !== 'http:') ||
    url.username !== '' ||
    url.password !== '' ||
    (url.pathname !== '/' && url.pathname !== '') ||
    url.search !== '' ||
    url.hash !== ''
  ) {
    throw new ServerError({
      code: 'invalid_request',
      field: 'publicOrigin',
      message: `publicOrigin: ${JSON.stringify(value.slice(0, 200))} is not an origin like https://toolbus.example.com (http or https, no path).`,
    });
  }
  return url.origin;
}

/**
 * Whether cookies must be `Secure`: the public origin is https, or (without one) this request came over https.
 * Behind a TLS proxy the request itself is plain http, so only the public origin can say so.
 */
export function isSecureOrigin(context: Context, publicOrigin: string | undefined): boolean {
  return new URL(publicOrigin ?? context.req.url).protocol === 'https:';
}

/**
 * The origin an OAuth redirect URI is built on: the public origin only, when set. Without one it would come from
 * the request's `Host` header, which any client sets: that is allowed for a request to a loopback name only (the
 * local case), and refused otherwise, saying what to do.
 */
export function oauthOrigin(context: Context, publicOrigin: string | undefined): string {
  if (publicOrigin !== undefined) return publicOrigin;
  const host = context.req.header('host');
  if (isLoopbackHostHeader(host)) return new URL(context.req.url).origin;
  throw new ServerError({
    code: 'conflict',
    field: 'header.host',
    message:
      'header.host: this server is reached by a non-loopback name but has no public origin, so an OAuth redirect URI would come from the Host header a client sends. Start it with --public-origin https://your.host (toolbus serve) or the publicOrigin option.',
  });
}

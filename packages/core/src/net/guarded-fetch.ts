import { omitUndefined } from '@toolbus/spec';
import type { Dispatcher, fetch as undiciFetch } from 'undici';
import { createBadPortDispatchers, isFetchBadPort } from './bad-port-dispatchers.ts';
import { type CompiledAddressPolicy, compileAddressPolicy, type GuardLevel } from './check-address.ts';
import {
  checkHostBeforeLookup,
  createGuardedConnector,
  type GuardedConnect,
  type GuardedLookup,
} from './guarded-connector.ts';
import { GuardedFetchError } from './guarded-fetch-error.ts';
import { loadUndici } from './load-undici.ts';
import { type NormalizedFetchRequest, normalizeFetchRequest } from './normalize-fetch-request.ts';

/** Options of {@link createGuardedFetch}. */
export interface GuardedFetchOptions {
  /** `strict` (default): public addresses only. `permissive`: private networks too, never metadata or link-local. */
  readonly level?: GuardLevel;
  /** CIDR blocks and host names exempt from the level (see `AddressPolicy.allow`). */
  readonly allow?: readonly string[];
  /** A `dns.lookup`-compatible resolver, called with `{ all: true }`; `dns.lookup` by default. */
  readonly lookup?: GuardedLookup;
  /**
   * The socket factory that dials an already-checked IP address (undici's `connect` option shape). Default:
   * undici's `buildConnector()`. Tests pass one that answers from a loopback server.
   */
  readonly connect?: GuardedConnect;
  /** Redirects followed before the request fails with `too_many_redirects`. Default 10. */
  readonly maxRedirects?: number;
}

/** A WHATWG `fetch` whose every connection is checked; `close()` ends its pooled connections. */
export type GuardedFetch = ((input: string | URL | Request, init?: RequestInit) => Promise<Response>) & {
  close(): Promise<void>;
};

const redirectStatuses = new Set([301, 302, 303, 307, 308]);
const nullBodyStatuses = new Set([101, 103, 204, 205, 304]);
const requestBodyHeaders = [
  'content-encoding',
  'content-language',
  'content-location',
  'content-type',
  'content-length',
];
const crossOriginDroppedHeaders = ['authorization', 'proxy-authorization', 'cookie', 'host'];

/**
 * Checks a URL before undici sees it (the first request and every redirect): credentials, scheme, and what can be
 * decided about the host without DNS. The guard's refusal so comes before anything undici would object to.
 */
function checkUrl(url: URL, policy: CompiledAddressPolicy): void {
  // Fetch refuses credentials in URLs; undici's own error would quote the URL, password included.
  if (url.username !== '' || url.password !== '') {
    throw new GuardedFetchError({
      code: 'credentials_in_url',
      message: `Refused a URL with credentials in it (host "${url.hostname}"); send credentials in a header instead`,
      host: url.hostname,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new GuardedFetchError({
      code: 'scheme_not_allowed',
      message: `Refused URL scheme "${url.protocol}": only http: and https: are allowed`,
      ...(url.hostname === '' ? {} : { host: url.hostname }),
    });
  }
  checkHostBeforeLookup(url.hostname, policy);
}

/** Rewraps undici's Response as this runtime's global Response, so `instanceof Response` holds for callers. */
function toGlobalResponse(
  response: Awaited<ReturnType<typeof undiciFetch>>,
  options: { url: URL; redirected: boolean },
): Response {
  const nullBody = nullBodyStatuses.has(response.status);
  if (nullBody) void response.body?.cancel().catch(() => {});
  let result: Response;
  try {
    result = new Response(nullBody ? null : (response.body as ReadableStream<Uint8Array> | null), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers as unknown as HeadersInit,
    });
  } catch (error) {
    // A hostile server can send what undici accepts but a Response cannot hold (status 600-999): a network error.
    void response.body?.cancel().catch(() => {});
    throw new TypeError('fetch failed', { cause: error });
  }
  const url = new URL(options.url);
  url.hash = '';
  Object.defineProperties(result, {
    url: { value: url.href, enumerable: true },
    redirected: { value: options.redirected, enumerable: true },
  });
  return result;
}

async function sendOnce(
  route: (url: URL) => { readonly dispatcher: Dispatcher; readonly url: URL },
  request: NormalizedFetchRequest,
): Promise<Awaited<ReturnType<typeof undiciFetch>>> {
  const { dispatcher, url } = route(request.url);
  try {
    const init = omitUndefined({
      method: request.method,
      headers: request.headers as unknown as Record<string, string>,
      body: request.body as string | null,
      redirect: 'manual' as const,
      dispatcher,
      signal: request.signal,
      ...(request.bodyReplayable ? {} : { duplex: 'half' as const }),
    });
    return await loadUndici().fetch(url, init);
  } catch (error) {
    // undici wraps connector errors in `TypeError: fetch failed`; the guard's refusal is the useful part.
    const cause = (error as { cause?: unknown }).cause;
    if (GuardedFetchError.isInstance(cause)) throw cause;
    throw error;
  }
}

/** Applies the fetch standard's HTTP-redirect rules to the request, for the next hop to `location`. */
function prepareRedirect(request: NormalizedFetchRequest, options: { status: number; location: URL }): void {
  const { status, location } = options;
  if (status !== 303 && request.body !== null && !request.bodyReplayable) {
    throw new GuardedFetchError({
      code: 'redirect_body_not_replayable',
      message: `Cannot follow a ${status} redirect to host "${location.hostname}": the request body was a stream and cannot be sent again`,
      host: location.hostname,
    });
  }
  if (
    ((status === 301 || status === 302) && request.method === 'POST') ||
    (status === 303 && request.method !== 'GET' && request.method !== 'HEAD')
  ) {
    request.method = 'GET';
    request.body = null;
    request.bodyReplayable = true;
    for (const name of requestBodyHeaders) request.headers.delete(name);
  }
  // Credentials meant for one origin must not follow a redirect to another.
  if (location.origin !== request.url.origin)
    for (const name of crossOriginDroppedHeaders) request.headers.delete(name);
  if (location.hash === '' && request.url.hash !== '') location.hash = request.url.hash;
  request.url = location;
}

/**
 * Creates a WHATWG-compatible `fetch` that refuses server-side request forgery at the transport. Every connection
 * goes through a connector that resolves the host, checks every address against the policy and dials the checked
 * address itself (so DNS rebinding between check and connect is impossible). Redirects are followed here, hop by
 * hop, each hop re-checked, capped at `maxRedirects`; schemes other than http: and https: are refused, also on a
 * redirect. Ports are not part of the policy: every port of an allowed address is reachable, including the ones
 * the fetch standard blocks for browsers (see `docs/decisions/outbound-guard-ports.md`). A refusal rejects with a
 * {@link GuardedFetchError}. Timeouts and size limits stay with the caller
 * (pass a `signal`). Hand the result to the MCP SDK's transports, OpenAPI tools, open_url and web search.
 */
export function createGuardedFetch(options: GuardedFetchOptions = {}): GuardedFetch {
  const policy = compileAddressPolicy({ level: options.level ?? 'strict', allow: options.allow ?? [] });
  const maxRedirects = options.maxRedirects ?? 10;
  if (!Number.isInteger(maxRedirects) || maxRedirects < 0)
    throw new TypeError('maxRedirects must be a non-negative integer');
  const connect = createGuardedConnector({
    policy,
    lookup: options.lookup,
    connect: options.connect,
  });
  // Made on the first request, with undici itself (about 1.2 MB of code a server at rest need not hold).
  let agent: Dispatcher | undefined;
  const badPorts = createBadPortDispatchers(connect);
  const route = (url: URL) => {
    if (isFetchBadPort(url)) return badPorts.route(url);
    agent ??= new (loadUndici().Agent)({ connect });
    return { dispatcher: agent, url };
  };

  const guardedFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = await normalizeFetchRequest(input, init);
    let redirects = 0;
    for (;;) {
      checkUrl(request.url, policy);
      const response = await sendOnce(route, request);
      const location = response.headers.get('location');
      if (!redirectStatuses.has(response.status) || request.redirect === 'manual') {
        return toGlobalResponse(response, { url: request.url, redirected: redirects > 0 });
      }
      if (request.redirect === 'error') {
        await response.body?.cancel();
        throw new TypeError('fetch failed', {
          cause: new Error(`unexpected redirect from host "${request.url.hostname}"`),
        });
      }
      if (location === null)
        return toGlobalResponse(response, { url: request.url, redirected: redirects > 0 });
      await response.body?.cancel();
      let next: URL;
      try {
        next = new URL(location, request.url);
      } catch (error) {
        throw new TypeError('fetch failed', { cause: error });
      }
      checkUrl(next, policy);
      if (redirects >= maxRedirects) {
        throw new GuardedFetchError({
          code: 'too_many_redirects',
          message: `Stopped after ${maxRedirects} redirects; the next hop was host "${next.hostname}"`,
          host: next.hostname,
        });
      }
      redirects += 1;
      prepareRedirect(request, { status: response.status, location: next });
    }
  };
  return Object.assign(guardedFetch, {
    close: async () => {
      await Promise.all([agent?.close(), badPorts.close()]);
    },
  });
}

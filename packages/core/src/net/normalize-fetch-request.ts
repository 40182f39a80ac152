/** A fetch call's input reduced to what the guarded fetch sends on each hop. */
export interface NormalizedFetchRequest {
  url: URL;
  method: string;
  headers: Headers;
  /** Passed to undici's fetch as is: a string, bytes, Blob, URLSearchParams, a stream, or null. */
  body: unknown;
  /** False when the body is a stream: it can be sent once, so a 307/308 redirect cannot repeat it. */
  bodyReplayable: boolean;
  readonly signal: AbortSignal | undefined;
  readonly redirect: RequestRedirect;
}

function isRequestLike(input: unknown): input is Request {
  return (
    typeof input === 'object' &&
    input !== null &&
    !(input instanceof URL) &&
    'url' in input &&
    'method' in input &&
    'headers' in input
  );
}

const normalizedMethods = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);

/** Fetch uppercases only the standard methods; any other method keeps its case. */
function normalizeMethod(method: string): string {
  const upper = method.toUpperCase();
  return normalizedMethods.has(upper) ? upper : method;
}

function isStream(body: unknown): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { getReader?: unknown }).getReader === 'function'
  );
}

/**
 * Merges `fetch(input, init)` the way `new Request(input, init)` would (init wins, field by field), accepting
 * Request objects from any copy of undici. An undici `dispatcher` in `init` is ignored on purpose: it would
 * bypass the guard. A global `FormData` body is encoded to bytes here, because the undici
 * that sends the request only recognises its own FormData class.
 */
export async function normalizeFetchRequest(
  input: string | URL | Request,
  init: RequestInit = {},
): Promise<NormalizedFetchRequest> {
  const request = isRequestLike(input) ? input : undefined;
  // Subresource integrity would be checked by undici on every hop, redirects included; refuse it rather than
  // drop a check the caller asked for.
  if ((init.integrity ?? request?.integrity ?? '') !== '')
    throw new TypeError('The guarded fetch does not support `integrity`');
  const url = new URL(request === undefined ? String(input) : request.url);
  const method = normalizeMethod(init.method ?? request?.method ?? 'GET');
  const headers = new Headers(init.headers ?? request?.headers);
  // WebIDL treats a member set to undefined as absent: `{ ...init, body: undefined }` keeps the Request's body.
  let body: unknown = init.body !== undefined ? init.body : (request?.body ?? null);
  if (body instanceof FormData) {
    const encoded = new Response(body);
    body = new Uint8Array(await encoded.arrayBuffer());
    const contentType = encoded.headers.get('content-type');
    if (contentType !== null && !headers.has('content-type')) headers.set('content-type', contentType);
  }
  return {
    url,
    method,
    headers,
    body,
    bodyReplayable: !isStream(body),
    signal: init.signal ?? request?.signal ?? undefined,
    redirect: init.redirect ?? request?.redirect ?? 'follow',
  };
}

import { GuardedFetchError } from '@toolbus/core';
import type { FetchFunction } from '@toolbus/spec';
import { readLimitedBody } from '@toolbus/spec';
import { OpenPageError } from './open-page-error.ts';
import { type PageContent, readPageContent } from './read-page-content.ts';

/** Options for {@link fetchPage}. */
export interface FetchPageOptions {
  readonly url: string;
  readonly fetch: FetchFunction;
  /** The call's signal: when it aborts, the abort is rethrown (the turn was cancelled), not reported per page. */
  readonly signal: AbortSignal;
  readonly maxBytes: number;
  readonly timeoutMs: number;
}

/** A page read over the network. */
export interface FetchedPage extends PageContent {
  /** Where the page was in the end, after redirects. */
  readonly finalUrl: string;
  /** True when the body went past `maxBytes` and only its first part was read. */
  readonly truncated: boolean;
}

const acceptHeader = 'text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,*/*;q=0.5';
const userAgent = 'Mozilla/5.0 (compatible; toolbus-open-url/0.1)';

function mebibytes(bytes: number): string {
  const value = bytes / (1024 * 1024);
  return value >= 1 ? `${Number(value.toFixed(1))} MiB` : `${Math.round(bytes / 1024)} KiB`;
}

/**
 * Fetches one page through the given fetch (the guarded one follows and checks redirects) with a time limit over
 * the whole exchange, reads at most `maxBytes` of it (a PDF past the limit is refused, since half a PDF cannot be
 * read; HTML and text keep their first part), and reduces it to text. Every failure becomes an
 * {@link OpenPageError} whose message tells the model what happened.
 */
export async function fetchPage(options: FetchPageOptions): Promise<FetchedPage> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([options.signal, timeout]);
  try {
    const response = await options.fetch(options.url, {
      headers: { accept: acceptHeader, 'user-agent': userAgent },
      redirect: 'follow',
      signal,
    });
    const finalUrl = response.url || options.url;
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      throw new OpenPageError({
        code: 'http_error',
        message: `the server answered HTTP ${response.status}${response.status === 404 ? ' (not found)' : ''}`,
      });
    }
    const contentType = response.headers.get('content-type') ?? '';
    const declaredLength = Number(response.headers.get('content-length') ?? Number.NaN);
    if (/^application\/pdf/i.test(contentType) && declaredLength > options.maxBytes) {
      await response.body?.cancel().catch(() => {});
      throw new OpenPageError({
        code: 'too_large',
        message: `the PDF is too large (${mebibytes(declaredLength)}, the limit is ${mebibytes(options.maxBytes)})`,
      });
    }
    const { bytes, truncated } = await readLimitedBody(response, options.maxBytes, signal);
    const content = await readPageContent({ bytes, contentType, url: finalUrl });
    if (truncated && content.mediaType === 'application/pdf') {
      throw new OpenPageError({
        code: 'too_large',
        message: `the PDF is larger than the ${mebibytes(options.maxBytes)} limit`,
      });
    }
    if (content.text.trim().length === 0) {
      throw new OpenPageError({ code: 'empty', message: 'the page has no readable text' });
    }
    return { ...content, finalUrl, truncated };
  } catch (error) {
    if (options.signal.aborted) throw options.signal.reason;
    throw toOpenPageError(error, { timedOut: timeout.aborted, timeoutMs: options.timeoutMs });
  }
}

function toOpenPageError(error: unknown, context: { timedOut: boolean; timeoutMs: number }): OpenPageError {
  if (OpenPageError.isInstance(error)) return error;
  if (context.timedOut) {
    return new OpenPageError({
      code: 'timeout',
      message: `the page did not load within ${Number((context.timeoutMs / 1000).toFixed(1))} s`,
      cause: error,
    });
  }
  if (GuardedFetchError.isInstance(error)) {
    if (error.code === 'host_unresolvable')
      return new OpenPageError({
        code: 'host_not_found',
        message: 'the host name does not resolve',
        cause: error,
      });
    return new OpenPageError({ code: 'blocked', message: guardRefusalMessage(error.code), cause: error });
  }
  const code = findErrorCode(error);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new OpenPageError({
      code: 'host_not_found',
      message: 'the host name does not resolve',
      cause: error,
    });
  }
  return new OpenPageError({
    code: 'network_error',
    message: `network error${code ? ` (${code})` : ''}`,
    cause: error,
  });
}

/** What the model reads for each refusal of the guarded fetch (every code named, so a new one is not misnamed). */
function guardRefusalMessage(code: GuardedFetchError['code']): string {
  switch (code) {
    case 'ssrf_blocked':
      return 'blocked: the page (or a redirect) points to a private, internal or metadata address, which is not allowed';
    case 'too_many_redirects':
      return 'too many redirects';
    case 'scheme_not_allowed':
      return 'blocked: the page redirected to an address that is not http(s)';
    case 'credentials_in_url':
      return 'blocked: the URL (or a redirect) carries a user name or password';
    case 'redirect_body_not_replayable':
      return 'blocked: a redirect would need the request body sent again';
    case 'host_unresolvable':
      return 'the host name does not resolve';
  }
}

/** The first `code` on the error's cause chain (undici wraps socket errors in `TypeError: fetch failed`). */
function findErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

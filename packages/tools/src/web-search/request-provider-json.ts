import { GuardedFetchError } from '@toolbus/core';
import type { FetchFunction } from '@toolbus/spec';
import { omitUndefined, readLimitedBody } from '@toolbus/spec';
import { WebSearchProviderError } from './web-search-provider-error.ts';

/** Options for {@link requestProviderJson}. */
export interface ProviderJsonRequest {
  /** The provider's name, for messages. */
  readonly provider: string;
  readonly url: URL;
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly fetch: FetchFunction;
  readonly signal: AbortSignal;
  /** Per attempt. Default 15 s. */
  readonly timeoutMs?: number;
  /** Wait before the one retry after a 5xx or a network error. Default 250 ms. */
  readonly retryDelayMs?: number;
  /** What a 401/403 means for this provider, when not a refused key (SearXNG: JSON output not enabled). */
  readonly forbiddenMeaning?: string;
}

const maxResponseBytes = 4 * 1024 * 1024;

/**
 * Sends one provider request and returns its parsed JSON body, with the behaviour every provider shares: 401/403
 * is a configuration error, 429 a rate limit (with `Retry-After`), a 5xx or a network error is retried once. No
 * message ever carries the request URL, headers or body: they hold the API key.
 */
export async function requestProviderJson(request: ProviderJsonRequest): Promise<unknown> {
  const { provider } = request;
  for (let attempt = 1; ; attempt += 1) {
    const retry = attempt === 1;
    let response: Response;
    const timeoutMs = request.timeoutMs ?? 15_000;
    try {
      response = await request.fetch(
        request.url,
        omitUndefined({
          method: request.method,
          headers: request.headers,
          body: request.body,
          signal: AbortSignal.any([request.signal, AbortSignal.timeout(timeoutMs)]),
        }),
      );
    } catch (error) {
      if (request.signal.aborted) throw request.signal.reason;
      // A name that did not resolve may be a passing DNS failure: retried like any network error.
      const unresolvable = GuardedFetchError.isInstance(error) && error.code === 'host_unresolvable';
      if (GuardedFetchError.isInstance(error) && !unresolvable) {
        throw new WebSearchProviderError({
          code: 'provider_unavailable',
          provider,
          message: `${provider} could not be reached: the network guard refused its address (${error.code}).`,
          cause: error,
        });
      }
      if (retry) {
        await delay(request.retryDelayMs ?? 250, request.signal);
        continue;
      }
      const timedOut = (error as { name?: unknown }).name === 'TimeoutError';
      throw new WebSearchProviderError({
        code: 'provider_unavailable',
        provider,
        message: timedOut
          ? `${provider} did not answer within ${Math.round(timeoutMs / 1000)} s.`
          : unresolvable
            ? `${provider} could not be reached: its host name does not resolve.`
            : `${provider} could not be reached (network error${networkErrorCode(error)}).`,
        cause: error,
      });
    }
    const { status } = response;
    if (status === 401 || status === 403) {
      await response.body?.cancel().catch(() => {});
      throw new WebSearchProviderError({
        code: 'provider_unauthorized',
        provider,
        status,
        message:
          request.forbiddenMeaning ??
          `${provider} refused the web search API key (HTTP ${status}). Web search is not configured correctly; an administrator must set a valid ${provider} API key. Do not retry web_search in this conversation.`,
      });
    }
    if (status === 429) {
      await response.body?.cancel().catch(() => {});
      const retryAfterSeconds = parseRetryAfter(response.headers.get('retry-after'));
      throw new WebSearchProviderError({
        code: 'provider_rate_limited',
        provider,
        status,
        retryAfterSeconds,
        message: `${provider} rate-limited the search (HTTP 429${retryAfterSeconds === undefined ? '' : `, retry after ${retryAfterSeconds} s`}). Try fewer queries, or search again later.`,
      });
    }
    if (status >= 500) {
      await response.body?.cancel().catch(() => {});
      if (retry) {
        await delay(request.retryDelayMs ?? 250, request.signal);
        continue;
      }
      throw new WebSearchProviderError({
        code: 'provider_unavailable',
        provider,
        status,
        message: `${provider} failed with HTTP ${status} twice. Try again later.`,
      });
    }
    if (status < 200 || status > 299) {
      await response.body?.cancel().catch(() => {});
      throw new WebSearchProviderError({
        code: 'provider_bad_response',
        provider,
        status,
        message: `${provider} answered HTTP ${status}; the query may be malformed. Try a simpler query.`,
      });
    }
    const { bytes, truncated } = await readLimitedBody(response, maxResponseBytes);
    try {
      if (truncated) throw new RangeError(`over ${maxResponseBytes} bytes`);
      return JSON.parse(new TextDecoder().decode(bytes)) as unknown;
    } catch (error) {
      throw new WebSearchProviderError({
        code: 'provider_bad_response',
        provider,
        status,
        message: `${provider} answered with something that is not its JSON format.`,
        cause: error,
      });
    }
  }
}

/** `Retry-After` is either delta-seconds or an HTTP date. */
function parseRetryAfter(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

function networkErrorCode(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  return typeof cause?.code === 'string' ? `: ${cause.code}` : '';
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

import { omitUndefined } from '@toolbus/spec';
import { arrayOf, httpUrlOf, recordOf, textOf } from './provider-json.ts';
import { requestProviderJson } from './request-provider-json.ts';
import type { WebSearchProvider, WebSearchResult } from './web-search-provider.ts';

/**
 * One provider request, as a provider describes it: `json` is sent as a JSON POST body, `form` as a form POST
 * body, neither makes a GET. `accept: application/json` and the content type are added here.
 */
export interface SearchProviderRequest {
  readonly url: URL;
  /** Authentication headers (the key travels here, or in the URL for Google). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly json?: unknown;
  readonly form?: Readonly<Record<string, string>>;
  /** What a 401/403 means, when not a refused key. */
  readonly forbiddenMeaning?: string;
}

/** How one provider's documented HTTP API is spoken: its request, and how its answer maps to results. */
export interface SearchProviderDefinition {
  /** The provider's name, for messages. */
  readonly name: string;
  readonly request: (query: string, count: number) => SearchProviderRequest;
  readonly results: (body: unknown, count: number) => WebSearchResult[];
}

/**
 * A provider from its definition. Every provider shares the transport (`requestProviderJson`: retries, status
 * mapping, size cap) and the lenient reading of results ({@link searchResultsOf}); a definition holds only what
 * its API documents.
 */
export function defineSearchProvider(definition: SearchProviderDefinition): WebSearchProvider {
  return {
    name: definition.name,
    async search(query, { fetch, signal, count }) {
      const request = definition.request(query, count);
      const { json, form } = request;
      const contentType =
        json !== undefined
          ? 'application/json'
          : form !== undefined
            ? 'application/x-www-form-urlencoded'
            : undefined;
      const body = await requestProviderJson({
        provider: definition.name,
        url: request.url,
        method: contentType === undefined ? 'GET' : 'POST',
        headers: {
          accept: 'application/json',
          ...omitUndefined({ 'content-type': contentType }),
          ...request.headers,
        },
        ...omitUndefined({
          body:
            json !== undefined ? JSON.stringify(json) : form && new URLSearchParams({ ...form }).toString(),
          forbiddenMeaning: request.forbiddenMeaning,
        }),
        fetch,
        signal,
      });
      return definition.results(body, count);
    },
  };
}

/** The fields one provider result maps to, before they are checked. */
export interface ProviderResultFields {
  readonly url: unknown;
  readonly title: unknown;
  /** Already text: a provider may compose it from several fields. */
  readonly snippet: string;
  readonly publishedAt?: unknown;
  readonly author?: unknown;
}

/**
 * A provider's result list as results: an item without an http(s) URL is skipped rather than failing the whole
 * answer, empty optional fields are left out, and at most `limit` results are kept.
 */
export function searchResultsOf(
  items: unknown,
  fieldsOf: (item: Record<string, unknown>) => ProviderResultFields,
  limit = Number.POSITIVE_INFINITY,
): WebSearchResult[] {
  const results: WebSearchResult[] = [];
  for (const item of arrayOf(items)) {
    const fields = fieldsOf(recordOf(item));
    const url = httpUrlOf(fields.url);
    if (!url) continue;
    results.push({
      title: textOf(fields.title),
      url,
      snippet: fields.snippet,
      ...omitUndefined({
        publishedAt: textOf(fields.publishedAt) || undefined,
        author: textOf(fields.author) || undefined,
      }),
    });
    if (results.length >= limit) break;
  }
  return results;
}

/** The count a provider is asked for: at least 1, at most what its API accepts. */
export function clampCount(count: number, max: number): number {
  return Math.min(Math.max(count, 1), max);
}

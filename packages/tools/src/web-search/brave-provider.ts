import { clampCount, defineSearchProvider, searchResultsOf } from './define-search-provider.ts';
import { endpointUrl, recordOf, textOf } from './provider-json.ts';
import type { WebSearchProvider } from './web-search-provider.ts';

/** Options for {@link createBraveProvider}. */
export interface BraveProviderOptions {
  readonly apiKey: string;
  /** Default `https://api.search.brave.com`. */
  readonly baseUrl?: string;
  /** Two-letter country code of the results. */
  readonly country?: string;
}

/**
 * Brave Search API, web search: `GET /res/v1/web/search?q&count` (count 1-20) with the key in the
 * `X-Subscription-Token` header; results in `web.results[]` (`title`, `url`, `description`, `page_age`).
 */
export function createBraveProvider(options: BraveProviderOptions): WebSearchProvider {
  return defineSearchProvider({
    name: 'Brave',
    request: (query, count) => {
      const url = endpointUrl(options.baseUrl ?? 'https://api.search.brave.com', '/res/v1/web/search');
      url.searchParams.set('q', query);
      url.searchParams.set('count', String(clampCount(count, 20)));
      if (options.country) url.searchParams.set('country', options.country);
      return { url, headers: { 'x-subscription-token': options.apiKey } };
    },
    results: (body) =>
      searchResultsOf(recordOf(recordOf(body).web).results, (result) => ({
        url: result.url,
        title: result.title,
        snippet: textOf(result.description),
        publishedAt: result.page_age,
      })),
  });
}

import { omitUndefined } from '@toolbus/spec';
import { arrayOf, endpointUrl, httpUrlOf, recordOf, textOf } from './provider-json.ts';
import { requestProviderJson } from './request-provider-json.ts';
import type { WebSearchProvider, WebSearchResult } from './web-search-provider.ts';

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
  return {
    name: 'Brave',
    async search(query, { fetch, signal, count }) {
      const url = endpointUrl(options.baseUrl ?? 'https://api.search.brave.com', '/res/v1/web/search');
      url.searchParams.set('q', query);
      url.searchParams.set('count', String(Math.min(Math.max(count, 1), 20)));
      if (options.country) url.searchParams.set('country', options.country);
      const body = await requestProviderJson({
        provider: 'Brave',
        url,
        method: 'GET',
        headers: { accept: 'application/json', 'x-subscription-token': options.apiKey },
        fetch,
        signal,
      });
      const results: WebSearchResult[] = [];
      for (const item of arrayOf(recordOf(recordOf(body).web).results)) {
        const result = recordOf(item);
        const link = httpUrlOf(result.url);
        if (!link) continue;
        const publishedAt = textOf(result.page_age);
        results.push({
          title: textOf(result.title),
          url: link,
          snippet: textOf(result.description),
          ...omitUndefined({ publishedAt: publishedAt || undefined }),
        });
      }
      return results;
    },
  };
}

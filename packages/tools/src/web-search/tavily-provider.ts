import { omitUndefined } from '@toolbus/spec';
import { arrayOf, endpointUrl, httpUrlOf, recordOf, textOf } from './provider-json.ts';
import { requestProviderJson } from './request-provider-json.ts';
import type { WebSearchProvider, WebSearchResult } from './web-search-provider.ts';

/** Options for {@link createTavilyProvider}. */
export interface TavilyProviderOptions {
  readonly apiKey: string;
  /** Default `https://api.tavily.com`. */
  readonly baseUrl?: string;
  /** Default `basic`. */
  readonly searchDepth?: 'basic' | 'advanced';
}

/**
 * Tavily: `POST /search` with `Authorization: Bearer <key>` and a JSON body `{query, max_results (1-20),
 * search_depth, topic}`; results in `results[]` (`title`, `url`, `content`, `published_date`).
 */
export function createTavilyProvider(options: TavilyProviderOptions): WebSearchProvider {
  return {
    name: 'Tavily',
    async search(query, { fetch, signal, count }) {
      const body = await requestProviderJson({
        provider: 'Tavily',
        url: endpointUrl(options.baseUrl ?? 'https://api.tavily.com', '/search'),
        method: 'POST',
        headers: {
          accept: 'application/json',
          'content-type': 'application/json',
          authorization: `Bearer ${options.apiKey}`,
        },
        body: JSON.stringify({
          query,
          max_results: Math.min(Math.max(count, 1), 20),
          search_depth: options.searchDepth ?? 'basic',
          topic: 'general',
        }),
        fetch,
        signal,
      });
      const results: WebSearchResult[] = [];
      for (const item of arrayOf(recordOf(body).results)) {
        const result = recordOf(item);
        const link = httpUrlOf(result.url);
        if (!link) continue;
        const publishedAt = textOf(result.published_date);
        results.push({
          title: textOf(result.title),
          url: link,
          snippet: textOf(result.content),
          ...omitUndefined({ publishedAt: publishedAt || undefined }),
        });
      }
      return results;
    },
  };
}

import { clampCount, defineSearchProvider, searchResultsOf } from './define-search-provider.ts';
import { endpointUrl, recordOf, textOf } from './provider-json.ts';
import type { WebSearchProvider } from './web-search-provider.ts';

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
  return defineSearchProvider({
    name: 'Tavily',
    request: (query, count) => ({
      url: endpointUrl(options.baseUrl ?? 'https://api.tavily.com', '/search'),
      headers: { authorization: `Bearer ${options.apiKey}` },
      json: {
        query,
        max_results: clampCount(count, 20),
        search_depth: options.searchDepth ?? 'basic',
        topic: 'general',
      },
    }),
    results: (body) =>
      searchResultsOf(recordOf(body).results, (result) => ({
        url: result.url,
        title: result.title,
        snippet: textOf(result.content),
        publishedAt: result.published_date,
      })),
  });
}

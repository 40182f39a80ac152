import { clampCount, defineSearchProvider, searchResultsOf } from './define-search-provider.ts';
import { endpointUrl, recordOf, textOf } from './provider-json.ts';
import type { WebSearchProvider } from './web-search-provider.ts';

/** Options for {@link createSerperProvider}. */
export interface SerperProviderOptions {
  readonly apiKey: string;
  /** Default `https://google.serper.dev`. */
  readonly baseUrl?: string;
}

/**
 * Serper (Google results): `POST /search` with the key in `X-API-KEY` and a JSON body `{q, num}`; results in
 * `organic[]` (`title`, `link`, `snippet`, `date`).
 */
export function createSerperProvider(options: SerperProviderOptions): WebSearchProvider {
  return defineSearchProvider({
    name: 'Serper',
    request: (query, count) => ({
      url: endpointUrl(options.baseUrl ?? 'https://google.serper.dev', '/search'),
      headers: { 'x-api-key': options.apiKey },
      json: { q: query, num: clampCount(count, 100) },
    }),
    results: (body) =>
      searchResultsOf(recordOf(body).organic, (result) => ({
        url: result.link,
        title: result.title,
        snippet: textOf(result.snippet),
        publishedAt: result.date,
      })),
  });
}

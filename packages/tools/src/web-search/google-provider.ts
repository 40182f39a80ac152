import { clampCount, defineSearchProvider, searchResultsOf } from './define-search-provider.ts';
import { arrayOf, endpointUrl, recordOf, textOf } from './provider-json.ts';
import type { WebSearchProvider } from './web-search-provider.ts';
import { WebSearchProviderError } from './web-search-provider-error.ts';

/** Options for {@link createGoogleProvider}. */
export interface GoogleProviderOptions {
  readonly apiKey: string;
  /** The Programmable Search Engine id, sent as `cx`. */
  readonly searchEngineId: string;
  /** Default `https://customsearch.googleapis.com`. */
  readonly baseUrl?: string;
}

/**
 * Google Programmable Search (Custom Search JSON API): `GET /customsearch/v1?key&cx&q&num` (num at most 10);
 * results in `items[]` (`title`, `link`, `snippet`, `pagemap.metatags[]`). The key travels in the query string,
 * so no message may quote the URL; an `error` object in a 200 body is an error too.
 */
export function createGoogleProvider(options: GoogleProviderOptions): WebSearchProvider {
  return defineSearchProvider({
    name: 'Google',
    request: (query, count) => {
      const url = endpointUrl(options.baseUrl ?? 'https://customsearch.googleapis.com', '/customsearch/v1');
      url.searchParams.set('key', options.apiKey);
      url.searchParams.set('cx', options.searchEngineId);
      url.searchParams.set('q', query);
      url.searchParams.set('num', String(clampCount(count, 10)));
      return { url };
    },
    results: (answer) => {
      const body = recordOf(answer);
      if (body.error !== undefined) {
        throw new WebSearchProviderError({
          code: 'provider_bad_response',
          provider: 'Google',
          message: 'Google answered with an error instead of results. Try a simpler query.',
        });
      }
      return searchResultsOf(body.items, (result) => {
        const metatags = recordOf(arrayOf(recordOf(result.pagemap).metatags)[0]);
        return {
          url: result.link,
          title: result.title,
          snippet: textOf(result.snippet),
          publishedAt: metatags['article:published_time'],
          author: metatags.author,
        };
      });
    },
  });
}

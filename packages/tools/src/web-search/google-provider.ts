import { omitUndefined } from '@toolbus/spec';
import { arrayOf, endpointUrl, httpUrlOf, recordOf, textOf } from './provider-json.ts';
import { requestProviderJson } from './request-provider-json.ts';
import type { WebSearchProvider, WebSearchResult } from './web-search-provider.ts';
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
  return {
    name: 'Google',
    async search(query, { fetch, signal, count }) {
      const url = endpointUrl(options.baseUrl ?? 'https://customsearch.googleapis.com', '/customsearch/v1');
      url.searchParams.set('key', options.apiKey);
      url.searchParams.set('cx', options.searchEngineId);
      url.searchParams.set('q', query);
      url.searchParams.set('num', String(Math.min(Math.max(count, 1), 10)));
      const body = recordOf(
        await requestProviderJson({
          provider: 'Google',
          url,
          method: 'GET',
          headers: { accept: 'application/json' },
          fetch,
          signal,
        }),
      );
      if (body.error !== undefined) {
        throw new WebSearchProviderError({
          code: 'provider_bad_response',
          provider: 'Google',
          message: 'Google answered with an error instead of results. Try a simpler query.',
        });
      }
      const results: WebSearchResult[] = [];
      for (const item of arrayOf(body.items)) {
        const result = recordOf(item);
        const link = httpUrlOf(result.link);
        if (!link) continue;
        const metatags = recordOf(arrayOf(recordOf(result.pagemap).metatags)[0]);
        const publishedAt = textOf(metatags['article:published_time']);
        const author = textOf(metatags.author);
        results.push({
          title: textOf(result.title),
          url: link,
          snippet: textOf(result.snippet),
          ...omitUndefined({ publishedAt: publishedAt || undefined, author: author || undefined }),
        });
      }
      return results;
    },
  };
}

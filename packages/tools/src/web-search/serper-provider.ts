import { omitUndefined } from '@toolbus/spec';
import { arrayOf, endpointUrl, httpUrlOf, recordOf, textOf } from './provider-json.ts';
import { requestProviderJson } from './request-provider-json.ts';
import type { WebSearchProvider, WebSearchResult } from './web-search-provider.ts';

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
  return {
    name: 'Serper',
    async search(query, { fetch, signal, count }) {
      const body = await requestProviderJson({
        provider: 'Serper',
        url: endpointUrl(options.baseUrl ?? 'https://google.serper.dev', '/search'),
        method: 'POST',
        headers: {
          accept: 'application/json',
          'content-type': 'application/json',
          'x-api-key': options.apiKey,
        },
        body: JSON.stringify({ q: query, num: Math.min(Math.max(count, 1), 100) }),
        fetch,
        signal,
      });
      const results: WebSearchResult[] = [];
      for (const item of arrayOf(recordOf(body).organic)) {
        const result = recordOf(item);
        const link = httpUrlOf(result.link);
        if (!link) continue;
        const publishedAt = textOf(result.date);
        results.push({
          title: textOf(result.title),
          url: link,
          snippet: textOf(result.snippet),
          ...omitUndefined({ publishedAt: publishedAt || undefined }),
        });
      }
      return results;
    },
  };
}

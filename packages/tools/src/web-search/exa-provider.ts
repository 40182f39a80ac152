import { omitUndefined } from '@toolbus/spec';
import { arrayOf, endpointUrl, httpUrlOf, recordOf, textOf } from './provider-json.ts';
import { requestProviderJson } from './request-provider-json.ts';
import type { WebSearchProvider, WebSearchResult } from './web-search-provider.ts';

/** Options for {@link createExaProvider}. */
export interface ExaProviderOptions {
  readonly apiKey: string;
  /** Default `https://api.exa.ai`. */
  readonly baseUrl?: string;
}

/**
 * Exa: `POST /search` with the key in `x-api-key` and a JSON body `{query, type: "auto", numResults, contents:
 * {highlights}}`; results in `results[]` (`title`, `url`, `publishedDate`, `author`, `highlights[]`).
 */
export function createExaProvider(options: ExaProviderOptions): WebSearchProvider {
  return {
    name: 'Exa',
    async search(query, { fetch, signal, count }) {
      const body = await requestProviderJson({
        provider: 'Exa',
        url: endpointUrl(options.baseUrl ?? 'https://api.exa.ai', '/search'),
        method: 'POST',
        headers: {
          accept: 'application/json',
          'content-type': 'application/json',
          'x-api-key': options.apiKey,
        },
        body: JSON.stringify({
          query,
          type: 'auto',
          numResults: Math.min(Math.max(count, 1), 100),
          contents: { highlights: { maxCharacters: 800 } },
        }),
        fetch,
        signal,
      });
      const results: WebSearchResult[] = [];
      for (const item of arrayOf(recordOf(body).results)) {
        const result = recordOf(item);
        const link = httpUrlOf(result.url);
        if (!link) continue;
        const highlights = arrayOf(result.highlights).map(textOf).filter(Boolean);
        const snippet = highlights.join(' … ') || textOf(result.summary) || textOf(result.text).slice(0, 800);
        const publishedAt = textOf(result.publishedDate);
        const author = textOf(result.author);
        results.push({
          title: textOf(result.title),
          url: link,
          snippet,
          ...omitUndefined({ publishedAt: publishedAt || undefined, author: author || undefined }),
        });
      }
      return results;
    },
  };
}

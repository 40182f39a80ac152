import { clampCount, defineSearchProvider, searchResultsOf } from './define-search-provider.ts';
import { arrayOf, endpointUrl, recordOf, textOf } from './provider-json.ts';
import type { WebSearchProvider } from './web-search-provider.ts';

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
  return defineSearchProvider({
    name: 'Exa',
    request: (query, count) => ({
      url: endpointUrl(options.baseUrl ?? 'https://api.exa.ai', '/search'),
      headers: { 'x-api-key': options.apiKey },
      json: {
        query,
        type: 'auto',
        numResults: clampCount(count, 100),
        contents: { highlights: { maxCharacters: 800 } },
      },
    }),
    results: (body) =>
      searchResultsOf(recordOf(body).results, (result) => {
        const highlights = arrayOf(result.highlights).map(textOf).filter(Boolean);
        return {
          url: result.url,
          title: result.title,
          snippet: highlights.join(' … ') || textOf(result.summary) || textOf(result.text).slice(0, 800),
          publishedAt: result.publishedDate,
          author: result.author,
        };
      }),
  });
}

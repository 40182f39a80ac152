import { defineSearchProvider, searchResultsOf } from './define-search-provider.ts';
import { endpointUrl, recordOf, textOf } from './provider-json.ts';
import type { WebSearchProvider } from './web-search-provider.ts';

/** Options for {@link createSearxngProvider}. */
export interface SearxngProviderOptions {
  /** The instance's address, e.g. `http://searxng:8080` (a self-hosted instance: no key). */
  readonly baseUrl: string;
}

/**
 * SearXNG search API: `POST /search` with the form fields `q` and `format=json` (the instance must list `json` in
 * `search.formats`, otherwise it answers 403); results in `results[]` (`title`, `url`, `content`,
 * `publishedDate`), trimmed to the count here because the API has no count parameter.
 */
export function createSearxngProvider(options: SearxngProviderOptions): WebSearchProvider {
  return defineSearchProvider({
    name: 'SearXNG',
    request: (query) => ({
      url: endpointUrl(options.baseUrl, '/search'),
      form: { q: query, format: 'json' },
      forbiddenMeaning:
        'The SearXNG instance refused JSON output (HTTP 403): its settings must list "json" under search.formats. Web search is not configured correctly; do not retry web_search in this conversation.',
    }),
    results: (body, count) =>
      searchResultsOf(
        recordOf(body).results,
        (result) => ({
          url: result.url,
          title: result.title,
          snippet: textOf(result.content),
          publishedAt: result.publishedDate,
        }),
        count,
      ),
  });
}

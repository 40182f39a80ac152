import { omitUndefined } from '@toolbus/spec';
import { arrayOf, endpointUrl, httpUrlOf, recordOf, textOf } from './provider-json.ts';
import { requestProviderJson } from './request-provider-json.ts';
import type { WebSearchProvider, WebSearchResult } from './web-search-provider.ts';

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
  return {
    name: 'SearXNG',
    async search(query, { fetch, signal, count }) {
      const body = await requestProviderJson({
        provider: 'SearXNG',
        url: endpointUrl(options.baseUrl, '/search'),
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ q: query, format: 'json' }).toString(),
        fetch,
        signal,
        forbiddenMeaning:
          'The SearXNG instance refused JSON output (HTTP 403): its settings must list "json" under search.formats. Web search is not configured correctly; do not retry web_search in this conversation.',
      });
      const results: WebSearchResult[] = [];
      for (const item of arrayOf(recordOf(body).results)) {
        const result = recordOf(item);
        const link = httpUrlOf(result.url);
        if (!link) continue;
        const publishedAt = textOf(result.publishedDate);
        results.push({
          title: textOf(result.title),
          url: link,
          snippet: textOf(result.content),
          ...omitUndefined({ publishedAt: publishedAt || undefined }),
        });
        if (results.length >= count) break;
      }
      return results;
    },
  };
}

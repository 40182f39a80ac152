import type { FetchFunction } from '@toolbus/spec';

/** One result of a web search, as every provider's answer is mapped. */
export interface WebSearchResult {
  readonly title: string;
  readonly url: string;
  /** The provider's excerpt of the page (description, snippet, highlight). */
  readonly snippet: string;
  /** When the page was published, as the provider states it (ISO date when it gives one). */
  readonly publishedAt?: string;
  readonly author?: string;
}

/** What a provider gets for one query. */
export interface WebSearchRequestOptions {
  /** The transport: the tool hands its (guarded) fetch to the provider on every call. */
  readonly fetch: FetchFunction;
  readonly signal: AbortSignal;
  /** How many results to ask for; providers clamp it to what their API accepts. */
  readonly count: number;
}

/** A web search backend speaking one provider's documented HTTP API. */
export interface WebSearchProvider {
  /** The provider's name, for messages (`Brave`, `Exa`...). */
  readonly name: string;
  /** Runs one query; throws a `WebSearchProviderError` when the provider refuses or fails. */
  search(query: string, options: WebSearchRequestOptions): Promise<WebSearchResult[]>;
}

/** Which provider, with its credentials. `baseUrl` replaces the documented endpoint's origin (tests, proxies). */
export type WebSearchProviderConfig =
  | {
      readonly provider: 'brave';
      readonly apiKey: string;
      readonly baseUrl?: string;
      readonly country?: string;
    }
  | { readonly provider: 'exa'; readonly apiKey: string; readonly baseUrl?: string }
  | { readonly provider: 'serper'; readonly apiKey: string; readonly baseUrl?: string }
  | {
      readonly provider: 'google';
      readonly apiKey: string;
      /** The Programmable Search Engine id (`cx`). */
      readonly searchEngineId: string;
      readonly baseUrl?: string;
    }
  | { readonly provider: 'searxng'; readonly baseUrl: string }
  | {
      readonly provider: 'tavily';
      readonly apiKey: string;
      readonly baseUrl?: string;
      readonly searchDepth?: 'basic' | 'advanced';
    };

/** The provider names {@link WebSearchProviderConfig} accepts. */
export type WebSearchProviderName = WebSearchProviderConfig['provider'];

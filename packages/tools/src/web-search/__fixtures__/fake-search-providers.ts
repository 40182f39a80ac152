// Fakes of the six web search APIs over real HTTP, answering in each provider's documented JSON format. Each fake
// answers 400 when the request does not have the shape the real API requires, so a wrong request fails the test
// even before the test's own assertions on the recorded request.
import type { ServerResponse } from 'node:http';
import { type LoopbackHttpServer, type ReceivedHttpRequest, startLoopbackHttpServer } from '@toolbus/core/testing';
import type { WebSearchProviderConfig } from '../web-search-provider.ts';

/** What the fake does with the next requests. */
export type FakeMode = 'success' | 'empty' | 'unauthorized' | 'rate-limited' | 'flaky';

/** A page a fake returns: one per query, derived from the query so tests can tell rankings apart. */
export interface FakeHit {
  readonly title: string;
  readonly url: string;
  readonly snippet: string;
}

export interface FakeProviderDefinition {
  readonly name: 'brave' | 'exa' | 'serper' | 'google' | 'searxng' | 'tavily';
  readonly displayName: string;
  readonly config: (baseUrl: string, apiKey: string) => WebSearchProviderConfig;
  /** The query a request carries, or a reason the request has the wrong shape. */
  readonly readQuery: (request: ReceivedHttpRequest, apiKey: string) => { query: string } | { wrong: string };
  readonly successBody: (hits: readonly FakeHit[], query: string) => unknown;
  readonly emptyBody: (query: string) => unknown;
  readonly unauthorizedBody: unknown;
}

export function hitsFor(query: string, count = 3): FakeHit[] {
  const slug = query.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  return Array.from({ length: count }, (_unused, index) => ({
    title: `${query} result ${index + 1}`,
    url: `https://${slug}.example/page-${index + 1}`,
    snippet: `About ${query}, excerpt ${index + 1}.`,
  }));
}

function parseJson(body: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(body) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function pathAndParams(request: ReceivedHttpRequest) {
  const url = new URL(request.url, 'http://fake');
  return { path: url.pathname, params: url.searchParams };
}

export const fakeProviders: readonly FakeProviderDefinition[] = [
  {
    name: 'brave',
    displayName: 'Brave',
    config: (baseUrl, apiKey) => ({ provider: 'brave', apiKey, baseUrl }),
    readQuery(request, apiKey) {
      const { path, params } = pathAndParams(request);
      if (request.method !== 'GET' || path !== '/res/v1/web/search') return { wrong: `${request.method} ${path}` };
      if (request.headers['x-subscription-token'] !== apiKey) return { wrong: 'X-Subscription-Token' };
      const count = Number(params.get('count'));
      if (!(count >= 1 && count <= 20)) return { wrong: 'count' };
      return { query: params.get('q') ?? '' };
    },
    successBody: (hits, query) => ({
      type: 'search',
      query: { original: query },
      web: {
        type: 'search',
        results: hits.map((hit) => ({
          title: hit.title,
          url: hit.url,
          description: `<strong>${hit.snippet}</strong>`,
          page_age: '2026-04-01T00:00:00',
          profile: { name: 'Example' },
        })),
      },
    }),
    emptyBody: (query) => ({ type: 'search', query: { original: query } }),
    unauthorizedBody: {
      type: 'ErrorResponse',
      error: { code: 'SUBSCRIPTION_TOKEN_INVALID', status: 401, detail: 'The provided subscription token is invalid.' },
    },
  },
  {
    name: 'exa',
    displayName: 'Exa',
    config: (baseUrl, apiKey) => ({ provider: 'exa', apiKey, baseUrl }),
    readQuery(request, apiKey) {
      const { path } = pathAndParams(request);
      if (request.method !== 'POST' || path !== '/search') return { wrong: `${request.method} ${path}` };
      if (request.headers['x-api-key'] !== apiKey) return { wrong: 'x-api-key' };
      if (!String(request.headers['content-type']).startsWith('application/json')) return { wrong: 'content-type' };
      const body = parseJson(request.body);
      if (typeof body?.query !== 'string' || typeof body.numResults !== 'number') return { wrong: 'body' };
      return { query: body.query };
    },
    successBody: (hits) => ({
      requestId: 'b5947044c4b78efa9552a7c89b306d95',
      resolvedSearchType: 'neural',
      results: hits.map((hit) => ({
        id: hit.url,
        title: hit.title,
        url: hit.url,
        publishedDate: '2026-04-01T00:00:00.000Z',
        author: 'Ada',
        highlights: [hit.snippet],
        highlightScores: [0.42],
      })),
      costDollars: { total: 0.005 },
    }),
    emptyBody: () => ({ requestId: 'empty', results: [] }),
    unauthorizedBody: { requestId: 'x', error: 'Invalid API key', tag: 'INVALID_API_KEY' },
  },
  {
    name: 'serper',
    displayName: 'Serper',
    config: (baseUrl, apiKey) => ({ provider: 'serper', apiKey, baseUrl }),
    readQuery(request, apiKey) {
      const { path } = pathAndParams(request);
      if (request.method !== 'POST' || path !== '/search') return { wrong: `${request.method} ${path}` };
      if (request.headers['x-api-key'] !== apiKey) return { wrong: 'X-API-KEY' };
      const body = parseJson(request.body);
      if (typeof body?.q !== 'string' || typeof body.num !== 'number') return { wrong: 'body' };
      return { query: body.q };
    },
    successBody: (hits, query) => ({
      searchParameters: { q: query, type: 'search', engine: 'google' },
      organic: hits.map((hit, index) => ({
        title: hit.title,
        link: hit.url,
        snippet: hit.snippet,
        position: index + 1,
      })),
      credits: 1,
    }),
    emptyBody: (query) => ({ searchParameters: { q: query, type: 'search' }, organic: [] }),
    unauthorizedBody: { message: 'Unauthorized.', statusCode: 403 },
  },
  {
    name: 'google',
    displayName: 'Google',
    config: (baseUrl, apiKey) => ({ provider: 'google', apiKey, searchEngineId: 'engine-017', baseUrl }),
    readQuery(request, apiKey) {
      const { path, params } = pathAndParams(request);
      if (request.method !== 'GET' || path !== '/customsearch/v1') return { wrong: `${request.method} ${path}` };
      if (params.get('key') !== apiKey) return { wrong: 'key' };
      if (params.get('cx') !== 'engine-017') return { wrong: 'cx' };
      const num = Number(params.get('num'));
      if (!(num >= 1 && num <= 10)) return { wrong: 'num' };
      return { query: params.get('q') ?? '' };
    },
    successBody: (hits, query) => ({
      kind: 'customsearch#search',
      queries: { request: [{ searchTerms: query }] },
      items: hits.map((hit) => ({
        kind: 'customsearch#result',
        title: hit.title,
        link: hit.url,
        snippet: hit.snippet,
        pagemap: { metatags: [{ 'article:published_time': '2026-04-01T00:00:00Z', author: 'Ada' }] },
      })),
    }),
    emptyBody: (query) => ({ kind: 'customsearch#search', queries: { request: [{ searchTerms: query }] } }),
    unauthorizedBody: {
      error: { code: 403, message: 'Requests from this client are blocked.', status: 'PERMISSION_DENIED' },
    },
  },
  {
    name: 'searxng',
    displayName: 'SearXNG',
    config: (baseUrl) => ({ provider: 'searxng', baseUrl: `${baseUrl}/searx` }),
    readQuery(request) {
      const { path } = pathAndParams(request);
      if (request.method !== 'POST' || path !== '/searx/search') return { wrong: `${request.method} ${path}` };
      if (!String(request.headers['content-type']).startsWith('application/x-www-form-urlencoded'))
        return { wrong: 'content-type' };
      const form = new URLSearchParams(request.body);
      if (form.get('format') !== 'json') return { wrong: 'format' };
      return { query: form.get('q') ?? '' };
    },
    successBody: (hits, query) => ({
      query,
      number_of_results: 0,
      results: hits.map((hit) => ({
        url: hit.url,
        title: hit.title,
        content: hit.snippet,
        engine: 'duckduckgo',
        engines: ['duckduckgo'],
        score: 1,
        category: 'general',
        publishedDate: null,
      })),
      answers: [],
      suggestions: [],
      unresponsive_engines: [],
    }),
    emptyBody: (query) => ({ query, number_of_results: 0, results: [], answers: [] }),
    unauthorizedBody: '403 Forbidden',
  },
  {
    name: 'tavily',
    displayName: 'Tavily',
    config: (baseUrl, apiKey) => ({ provider: 'tavily', apiKey, baseUrl }),
    readQuery(request, apiKey) {
      const { path } = pathAndParams(request);
      if (request.method !== 'POST' || path !== '/search') return { wrong: `${request.method} ${path}` };
      if (request.headers.authorization !== `Bearer ${apiKey}`) return { wrong: 'Authorization' };
      const body = parseJson(request.body);
      const max = body?.max_results;
      if (typeof body?.query !== 'string' || typeof max !== 'number' || max < 1 || max > 20)
        return { wrong: 'body' };
      return { query: body.query };
    },
    successBody: (hits, query) => ({
      query,
      answer: null,
      images: [],
      results: hits.map((hit) => ({
        title: hit.title,
        url: hit.url,
        content: hit.snippet,
        score: 0.8,
        raw_content: null,
      })),
      response_time: 1.09,
    }),
    emptyBody: (query) => ({ query, answer: null, images: [], results: [], response_time: 0.5 }),
    unauthorizedBody: { detail: { error: 'Unauthorized: missing or invalid API key.' } },
  },
];

export interface FakeProviderServer extends LoopbackHttpServer {
  mode: FakeMode;
  /** Queries answered with 500 every time (one query failing while the others succeed). */
  readonly failingQueries: Set<string>;
  /** Overrides the hits of a query. */
  readonly hits: Map<string, FakeHit[]>;
  /** The queries of the requests received, in order. */
  queries(): string[];
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  response.writeHead(status, {
    'content-type': typeof body === 'string' ? 'text/plain' : 'application/json',
    ...headers,
  });
  response.end(text);
}

export async function startFakeProvider(
  definition: FakeProviderDefinition,
  apiKey: string,
): Promise<FakeProviderServer> {
  const seen = new Map<string, number>();
  // The handler reads `fake` (assigned below, before any request can arrive), so tests can switch modes.
  let fake: FakeProviderServer | undefined;
  const server = await startLoopbackHttpServer((request, response) => {
    const read = definition.readQuery(request, apiKey);
    if ('wrong' in read) return send(response, 400, { error: `request shape wrong: ${read.wrong}` });
    const attempts = (seen.get(read.query) ?? 0) + 1;
    seen.set(read.query, attempts);
    const state = fake as FakeProviderServer;
    if (state.failingQueries.has(read.query)) return send(response, 500, { error: 'internal' });
    switch (state.mode) {
      case 'unauthorized':
        return send(response, definition.name === 'serper' || definition.name === 'searxng' ? 403 : 401, definition.unauthorizedBody);
      case 'rate-limited':
        return send(response, 429, { error: 'rate limit exceeded' }, { 'retry-after': '7' });
      case 'flaky':
        if (attempts === 1) return send(response, 500, { error: 'try again' });
        return send(response, 200, definition.successBody(state.hits.get(read.query) ?? hitsFor(read.query), read.query));
      case 'empty':
        return send(response, 200, definition.emptyBody(read.query));
      default:
        return send(response, 200, definition.successBody(state.hits.get(read.query) ?? hitsFor(read.query), read.query));
    }
  });
  fake = Object.assign(server, {
    mode: 'success' as FakeMode,
    failingQueries: new Set<string>(),
    hits: new Map<string, FakeHit[]>(),
    queries: () =>
      server.received.map((request) => {
        const read = definition.readQuery(request, apiKey);
        return 'query' in read ? read.query : '';
      }),
  });
  return fake;
}

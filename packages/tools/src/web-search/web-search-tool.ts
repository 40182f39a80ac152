import { defineTool } from '@toolbus/core';
import {
  type FetchFunction,
  omitUndefined,
  type SearchDocument,
  type Tool,
  ToolCallError,
  ToolExecutionError,
} from '@toolbus/spec';
import * as z from 'zod';
import { normalizeUrl, webDocumentId } from '../open-url/normalize-url.ts';
import type { WebSearchProvider, WebSearchResult } from './web-search-provider.ts';
import { WebSearchProviderError } from './web-search-provider-error.ts';

/** Options for {@link createWebSearchTool}. */
export interface WebSearchToolOptions {
  readonly provider: WebSearchProvider;
  /** Every provider request goes through it: pass the guarded fetch. */
  readonly fetch: FetchFunction;
  /** Results the model gets in all, across queries. Default 15. */
  readonly maxResults?: number;
  /** Results asked of the provider per query. Default 10. */
  readonly resultsPerQuery?: number;
}

const maxQueries = 6;

/** Control characters out, whitespace collapsed: queries come from the model and go into provider URLs. */
function cleanQuery(query: string): string {
  return query
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** What the model reads about a query that failed (the provider's message is written for it, without secrets). */
function failureText(error: unknown): string {
  return WebSearchProviderError.isInstance(error) ? error.message : 'the search failed unexpectedly';
}

// Made once: the tool is made per turn, and its JSON schema is converted once per schema object.
const webSearchParameters = z.object({
  queries: z.array(z.string()).min(1).max(maxQueries).describe('Short web search queries'),
});

/**
 * `web_search`: runs every query against the configured provider in parallel, interleaves the rankings
 * round-robin, drops duplicates by normalised URL, numbers the pages from the turn's citation allocator (ids
 * `web:<normalised url>`, so open_url reuses a number) and streams queries and documents to the UI. One query
 * failing does not fail the others; when all fail, the model reads why (a refused key, a rate limit...).
 */
export function createWebSearchTool(options: WebSearchToolOptions): Tool {
  const maxResults = options.maxResults ?? 15;
  const resultsPerQuery = options.resultsPerQuery ?? 10;
  const { provider } = options;
  return defineTool({
    name: 'web_search',
    displayName: 'Web Search',
    mergeableField: 'queries',
    description:
      'Search the public web. Give one or more short queries (different phrasings or sub-questions; at most 3 ' +
      'usually suffice). Results are snippets: open the promising pages with open_url to read them in full. ' +
      'Cite results with their [number].',
    parameters: webSearchParameters,
    exampleArguments: { queries: ['node 24 release date', 'node 24 new features'] },
    async run(args, context) {
      const queries = [...new Set(args.queries.map(cleanQuery).filter((query) => query !== ''))];
      if (queries.length === 0) {
        throw new ToolCallError({
          code: 'invalid_arguments',
          message: 'web_search got only empty queries',
          modelMessage: 'Every query was empty. Call web_search with at least one query of printable words.',
        });
      }
      context.emitter.emit({ type: 'search-queries', toolCallId: context.call.id, queries });
      const settled = await Promise.allSettled(
        queries.map((query) =>
          provider.search(query, { fetch: options.fetch, signal: context.signal, count: resultsPerQuery }),
        ),
      );
      if (context.signal.aborted) throw context.signal.reason;
      const rankings: WebSearchResult[][] = [];
      const failures: { query: string; error: unknown }[] = [];
      settled.forEach((outcome, index) => {
        if (outcome.status === 'fulfilled') {
          rankings.push(
            outcome.value.filter((result) => result.title || result.snippet).slice(0, resultsPerQuery),
          );
        } else failures.push({ query: queries[index] ?? '', error: outcome.reason });
      });
      if (rankings.length === 0) throw allFailedError(provider.name, failures);

      const picked = new Map<string, { result: WebSearchResult; rank: number }>();
      const longest = Math.max(...rankings.map((ranking) => ranking.length));
      for (let rank = 0; rank < longest && picked.size < maxResults; rank += 1) {
        for (const ranking of rankings) {
          const result = ranking[rank];
          const normalized = result && normalizeUrl(result.url);
          if (!result || !normalized || picked.has(normalized) || picked.size >= maxResults) continue;
          picked.set(normalized, { result, rank });
        }
      }
      const notes = failures.map(
        ({ query, error }) => `Note: the query "${query}" failed: ${failureText(error)}`,
      );
      if (picked.size === 0) {
        return {
          llmFacing: [
            `No web results for ${queries.map((query) => `"${query}"`).join(', ')}. Try rephrasing with other words.`,
            ...notes,
          ].join('\n'),
          rich: { type: 'documents', documents: [] },
        };
      }
      const documents: SearchDocument[] = [...picked].map(([normalized, { result, rank }]) => ({
        id: webDocumentId(normalized),
        title: result.title || new URL(result.url).hostname,
        link: result.url,
        blurb: result.snippet.slice(0, 240),
        content: result.snippet,
        sourceType: 'web',
        isInternet: true,
        score: 1 / (rank + 1),
        ...omitUndefined({ updatedAt: result.publishedAt || undefined }),
        ...(result.author ? { metadata: { author: result.author } } : {}),
      }));
      const cited = context.citations.assign(documents);
      context.emitter.emit({ type: 'search-documents', toolCallId: context.call.id, documents: cited });
      const llmFacing = cited
        .map((document) =>
          [
            `[${document.citationNumber}] ${document.title}`,
            `URL: ${document.link ?? ''}`,
            ...(document.updatedAt ? [`Published: ${document.updatedAt}`] : []),
            document.content,
          ].join('\n'),
        )
        .concat(notes.length > 0 ? [notes.join('\n')] : [])
        .join('\n\n');
      return { llmFacing, rich: { type: 'documents', documents: cited } };
    },
  });
}

/** Provider failures that say what to fix first, in that order (a refused key outranks a rate limit). */
const rankedFailures = [
  { provider: 'provider_unauthorized', tool: 'web_search_unauthorized' },
  { provider: 'provider_rate_limited', tool: 'web_search_rate_limited' },
] as const;

/** Every query failed: a ranked failure ({@link rankedFailures}) outranks the rest (it is what to fix first). */
function allFailedError(
  providerName: string,
  failures: { query: string; error: unknown }[],
): ToolExecutionError {
  const errors = failures.map(({ error }) => error);
  for (const { provider, tool } of rankedFailures) {
    const ranked = errors.find(
      (error) => WebSearchProviderError.isInstance(error) && error.code === provider,
    );
    if (ranked) return new ToolExecutionError({ code: tool, message: failureText(ranked), cause: ranked });
  }
  return new ToolExecutionError({
    code: 'web_search_failed',
    message: `Web search with ${providerName} failed for every query: ${failures
      .map(({ query, error }) => `"${query}": ${failureText(error)}`)
      .join('; ')}`,
    cause: errors[0],
  });
}

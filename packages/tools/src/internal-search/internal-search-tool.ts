import { defineTool } from '@toolbus/core';
import type { SearchDocument, Tool } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import * as z from 'zod';
import type { SearchHit } from './document-index.ts';
import type { DocumentSearchIndex } from './document-search-index.ts';

/** Options for {@link createInternalSearchTool}. */
export interface InternalSearchToolOptions {
  readonly index: DocumentSearchIndex;
  /** Chunks taken per query. Default 6. */
  readonly resultsPerQuery?: number;
  /** Documents the model gets in all, across queries. Default 15. */
  readonly maxDocuments?: number;
  /** Characters of each chunk the model reads. Default 1,500. */
  readonly maxCharsPerDocument?: number;
}

const maxQueries = 6;

// Made once: the tool is made per turn, and its JSON schema is converted once per schema object.
const internalSearchParameters = z.object({
  queries: z.array(z.string().min(1)).min(1).max(maxQueries).describe('Short keyword queries'),
});

/**
 * `internal_search`: searches the user's indexed documents (SQLite FTS5 with BM25, or PostgreSQL full-text search) with one or more queries, merges
 * and de-duplicates the hits, numbers them from the turn's citation allocator, streams the queries and the
 * documents to the UI, and gives the model each document with its citation number.
 */
export function createInternalSearchTool(options: InternalSearchToolOptions): Tool {
  const resultsPerQuery = options.resultsPerQuery ?? 6;
  const maxDocuments = options.maxDocuments ?? 15;
  const maxChars = options.maxCharsPerDocument ?? 1500;
  return defineTool({
    name: 'internal_search',
    displayName: 'Internal Search',
    mergeableField: 'queries',
    description:
      "Search the user's own indexed documents (files, notes, manuals). Use several short keyword queries for " +
      'different phrasings (at most 3 usually suffice). Cite results with their [number].',
    parameters: internalSearchParameters,
    exampleArguments: { queries: ['refund policy', 'refund time limit'] },
    async run({ queries }, context) {
      context.emitter.emit({ type: 'search-queries', toolCallId: context.call.id, queries });
      const hits = new Map<number, SearchHit>();
      // Round-robin over the queries' rankings, so every query contributes its best hits first.
      const rankings = await Promise.all(
        queries.map((query) => options.index.search(query, { limit: resultsPerQuery })),
      );
      for (let rank = 0; rank < resultsPerQuery && hits.size < maxDocuments; rank += 1) {
        for (const ranking of rankings) {
          const hit = ranking[rank];
          if (hit && !hits.has(hit.chunkId) && hits.size < maxDocuments) hits.set(hit.chunkId, hit);
        }
      }
      if (hits.size === 0) {
        return {
          llmFacing: `No documents matched ${queries.map((query) => `"${query}"`).join(', ')}. Try other keywords, or answer without the documents.`,
          rich: { type: 'documents', documents: [] },
        };
      }
      const documents: SearchDocument[] = [...hits.values()].map((hit) => ({
        id: `${hit.sourceId}#${hit.ordinal}`,
        title: hit.title,
        ...omitUndefined({ link: hit.link || undefined }),
        blurb: hit.content.slice(0, 240),
        content: hit.content.length > maxChars ? `${hit.content.slice(0, maxChars)}…` : hit.content,
        sourceType: 'file',
        score: hit.score,
        ...omitUndefined({ updatedAt: hit.updatedAt || undefined }),
      }));
      const cited = context.citations.assign(documents);
      context.emitter.emit({ type: 'search-documents', toolCallId: context.call.id, documents: cited });
      const llmFacing = cited
        .map((document) => `[${document.citationNumber}] ${document.title}\n${document.content}`)
        .join('\n\n');
      return { llmFacing, rich: { type: 'documents', documents: cited } };
    },
  });
}

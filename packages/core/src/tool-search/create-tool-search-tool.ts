import type { Tool } from '@toolbus/spec';
import * as z from 'zod';
import { defineTool } from '../tool/define-tool.ts';
import type { ToolSearchIndex } from './rank-tools.ts';

/** The name the model calls tool search by. */
export const TOOL_SEARCH_TOOL_NAME = 'tool_search';

/**
 * The tool the model calls when a toolset is too large to send: a ranked search whose results come back as full
 * definitions, and which `onFound` loads into the next cycle so the model can call them.
 */
export function createToolSearchTool(options: {
  readonly index: ToolSearchIndex;
  readonly onFound: (names: readonly string[]) => void;
  /** Matches returned per search (default 5). */
  readonly limit?: number;
}): Tool {
  return defineTool({
    name: TOOL_SEARCH_TOOL_NAME,
    displayName: 'Tool search',
    description:
      `Searches the ${options.index.size} tools available to you (too many to list) by what they do. Call it ` +
      'with words describing the action and its object (e.g. "list repository issues"); the matching tools ' +
      'become callable in your next step. Search again with other words when none fits.',
    parameters: z.object({
      query: z.string().min(1).describe('What the tool should do, in a few words'),
    }),
    run: ({ query }) => {
      const matches = options.index.search(query, options.limit ?? 5);
      options.onFound(matches.map((match) => match.definition.name));
      if (matches.length === 0) return `No tool matches "${query}". Try other words.`;
      return JSON.stringify({
        note: 'These tools can be called from your next step.',
        tools: matches.map((match) => match.definition),
      });
    },
  });
}

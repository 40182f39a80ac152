import type { Tool, ToolDefinition } from '@toolbus/spec';
import { roughTokenCount } from '../rough-token-count.ts';
import { createToolSearchTool, TOOL_SEARCH_TOOL_NAME } from './create-tool-search-tool.ts';
import { createToolSearchIndex } from './rank-tools.ts';

/** When a toolset is too big to send whole. */
export interface ToolSearchLimits {
  /** More tools than this → tool search (default 128: OpenAI's limit; most models do worse well before). */
  readonly maxTools?: number;
  /** Definitions estimated above this many tokens → tool search (default 32,000). */
  readonly maxTokens?: number;
}

/** Default {@link ToolSearchLimits}. */
export const DEFAULT_TOOL_SEARCH_LIMITS: Required<ToolSearchLimits> = { maxTools: 128, maxTokens: 32_000 };

/** How the tools of a turn are offered, and which tools each cycle gets. */
export interface Toolset {
  /** `all`: every tool in every cycle. `search`: a tool-search tool plus the tools it found so far. */
  readonly mode: 'all' | 'search';
  readonly total: number;
  /** Estimated tokens of all definitions. */
  readonly estimatedTokens: number;
  /** The tools the next cycle offers. */
  current(): readonly Tool[];
}

/**
 * Decides how a turn offers its tools: all of them when they fit the limits (then nothing changes), else a
 * `tool_search` tool whose results are loaded into the following cycles (up to the tool limit, oldest dropped
 * first), as providers with native tool search do.
 */
export function planToolset(tools: readonly Tool[], limits: ToolSearchLimits = {}): Toolset {
  const maxTools = limits.maxTools ?? DEFAULT_TOOL_SEARCH_LIMITS.maxTools;
  const maxTokens = limits.maxTokens ?? DEFAULT_TOOL_SEARCH_LIMITS.maxTokens;
  const definitions = tools.map((tool) => tool.definition());
  const estimatedTokens = estimateTokens(definitions);
  if (tools.length <= maxTools && estimatedTokens <= maxTokens) {
    return { mode: 'all', total: tools.length, estimatedTokens, current: () => tools };
  }
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const loaded: string[] = [];
  const index = createToolSearchIndex(
    definitions.filter((definition) => definition.name !== TOOL_SEARCH_TOOL_NAME),
  );
  const searchTool = createToolSearchTool({
    index,
    onFound: (names) => {
      for (const name of names) {
        const at = loaded.indexOf(name);
        if (at >= 0) loaded.splice(at, 1);
        loaded.push(name);
      }
      // Keep what is offered within the tool limit: the least recently found go first.
      while (loaded.length > Math.max(1, maxTools - 1)) loaded.shift();
    },
  });
  return {
    mode: 'search',
    total: tools.length,
    estimatedTokens,
    current: () => [searchTool, ...loaded.flatMap((name) => byName.get(name) ?? [])],
  };
}

/** A rough token count of definitions as JSON. */
export function estimateTokens(definitions: readonly ToolDefinition[]): number {
  return roughTokenCount(JSON.stringify(definitions).length);
}

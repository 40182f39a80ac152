import type { ToolDefinition } from '@toolbus/spec';

/** One ranked match of a tool search. */
export interface RankedTool {
  readonly definition: ToolDefinition;
  readonly score: number;
}

interface IndexedTool {
  readonly definition: ToolDefinition;
  readonly name: ReadonlySet<string>;
  readonly parameters: ReadonlySet<string>;
  readonly description: ReadonlyMap<string, number>;
}

/** A search index over tool definitions, built once per toolset. */
export interface ToolSearchIndex {
  readonly size: number;
  /** The best matches for `query`, best first, at most `limit`; ties keep the toolset's order. */
  search(query: string, limit: number): RankedTool[];
}

// A word in the name says more than one in the description; parameter names sit between.
const nameWeight = 3;
const parameterWeight = 2;
const descriptionWeight = 1;

/**
 * Builds a ranked search over tool names, descriptions and parameter names: words are split on case changes,
 * `_`, `-`, `/` and punctuation and lowercased; a query word matches a tool word exactly or as its prefix (of at
 * least 3 letters); rare words weigh more (inverse document frequency), so "issue" beats "get" in a big API.
 */
export function createToolSearchIndex(definitions: readonly ToolDefinition[]): ToolSearchIndex {
  const tools: IndexedTool[] = definitions.map((definition) => ({
    definition,
    name: new Set(words(definition.name)),
    parameters: new Set(parameterNames(definition.parameters).flatMap(words)),
    description: counts(words(definition.description)),
  }));
  const documentFrequency = new Map<string, number>();
  for (const tool of tools) {
    for (const word of new Set([...tool.name, ...tool.parameters, ...tool.description.keys()])) {
      documentFrequency.set(word, (documentFrequency.get(word) ?? 0) + 1);
    }
  }
  const allWords = [...documentFrequency.keys()];
  const rarity = (word: string) => Math.log(1 + tools.length / (documentFrequency.get(word) ?? tools.length));
  return {
    size: tools.length,
    search(query, limit) {
      const queryWords = [...new Set(words(query))];
      // Each query word stands for itself and for the tool words it is a prefix of ("repo" → "repos").
      const expansions = queryWords.map((word) =>
        word.length >= 3 ? allWords.filter((candidate) => candidate.startsWith(word)) : [word],
      );
      const ranked: RankedTool[] = [];
      for (const tool of tools) {
        let score = 0;
        for (const group of expansions) {
          let best = 0;
          for (const word of group) {
            const weight =
              (tool.name.has(word) ? nameWeight : 0) +
              (tool.parameters.has(word) ? parameterWeight : 0) +
              Math.min(tool.description.get(word) ?? 0, 3) * descriptionWeight;
            best = Math.max(best, weight * rarity(word));
          }
          score += best;
        }
        if (score > 0) ranked.push({ definition: tool.definition, score });
      }
      return ranked.sort((a, b) => b.score - a.score).slice(0, Math.max(0, limit));
    },
  };
}

function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 1 && !stopWords.has(word));
}

const stopWords = new Set([
  'the',
  'a',
  'an',
  'of',
  'to',
  'for',
  'and',
  'or',
  'in',
  'on',
  'by',
  'is',
  'it',
  'be',
]);

function counts(list: readonly string[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const word of list) map.set(word, (map.get(word) ?? 0) + 1);
  return map;
}

function parameterNames(schema: unknown): string[] {
  const properties = (schema as { properties?: unknown } | undefined)?.properties;
  if (typeof properties !== 'object' || properties === null) return [];
  const names: string[] = [];
  for (const [name, inner] of Object.entries(properties)) {
    names.push(name);
    // One level down: a request body's fields are parameters too (`body.title`).
    const nested = (inner as { properties?: unknown } | undefined)?.properties;
    if (typeof nested === 'object' && nested !== null) names.push(...Object.keys(nested));
  }
  return names;
}

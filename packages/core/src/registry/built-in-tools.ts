/**
 * What toolbus knows about a built-in tool before any instance exists: how a persona's tool row names it and the
 * name the model calls it by. What the tool does in a run (its display name, whether it stops the turn, merges
 * its calls or streams its arguments) is declared by the tool itself (`Tool`), and the runner reads it from there.
 */
export interface BuiltInToolEntry {
  /** The id stored in a persona's tool row (the class name in the system toolbus models). */
  readonly id: string;
  /** The LLM-facing name. */
  readonly name: string;
  /**
   * The name people read, before any instance exists (the persona editor); the same as the tool's own
   * `displayName` in its packets (built-in-tool-facts.test.ts holds them together).
   */
  readonly displayName: string;
  /** It produces documents that get citation numbers. */
  readonly citeable: boolean;
}

/** Every built-in tool, in a fixed order. Built once; the maps below give O(1) lookups. */
export const BUILT_IN_TOOLS: readonly BuiltInToolEntry[] = [
  {
    id: 'SearchTool',
    displayName: 'Internal Search',
    name: 'internal_search',
    citeable: true,
  },
  {
    id: 'WebSearchTool',
    displayName: 'Web Search',
    name: 'web_search',
    citeable: true,
  },
  {
    id: 'OpenURLTool',
    displayName: 'Open URL',
    name: 'open_url',
    citeable: true,
  },
  {
    id: 'PythonTool',
    displayName: 'Code Interpreter',
    // Not `python`: OpenAI reserves that function name and rejects a request that declares it.
    name: 'run_python',
    citeable: false,
  },
  {
    id: 'ImageGenerationTool',
    displayName: 'Image Generation',
    name: 'generate_image',
    citeable: false,
  },
  {
    id: 'FileReaderTool',
    displayName: 'File Reader',
    name: 'read_file',
    citeable: false,
  },
  {
    id: 'MemoryTool',
    displayName: 'Memory',
    name: 'add_memory',
    citeable: false,
  },
  {
    id: 'CodingAgentTool',
    displayName: 'Coding Agent',
    name: 'coding_agent',
    citeable: false,
  },
];

/** Built-in tools by stored id (`SearchTool`). */
export const BUILT_IN_TOOLS_BY_ID: ReadonlyMap<string, BuiltInToolEntry> = new Map(
  BUILT_IN_TOOLS.map((entry) => [entry.id, entry]),
);

/** Built-in tools by LLM name (`internal_search`): what the streaming step looks up. */
export const BUILT_IN_TOOLS_BY_NAME: ReadonlyMap<string, BuiltInToolEntry> = new Map(
  BUILT_IN_TOOLS.map((entry) => [entry.name, entry]),
);

/** LLM names of tools that produce citeable documents. */
export const CITEABLE_TOOLS: ReadonlySet<string> = new Set(
  BUILT_IN_TOOLS.filter((entry) => entry.citeable).map((entry) => entry.name),
);

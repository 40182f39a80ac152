/** The list field whose values are combined when a tool is called several times in one cycle. */
export type MergeableField = 'queries' | 'urls';

/** What toolbus knows about a built-in tool before any instance exists. */
export interface BuiltInToolEntry {
  /** The id stored in a persona's tool row (the seed stores the class name). */
  readonly id: string;
  /** The LLM-facing name. */
  readonly name: string;
  readonly displayName: string;
  /** Running it ends the turn's loop (image generation). */
  readonly stopping: boolean;
  /** It produces documents that get citation numbers. */
  readonly citeable: boolean;
  readonly mergeableField?: MergeableField;
  readonly streamsArgumentDeltas: boolean;
}

/** Every built-in tool, in a fixed order. Built once; the maps below give O(1) lookups. */
export const BUILT_IN_TOOLS: readonly BuiltInToolEntry[] = [
  {
    id: 'SearchTool',
    name: 'internal_search',
    displayName: 'Internal Search',
    stopping: false,
    citeable: true,
    mergeableField: 'queries',
    streamsArgumentDeltas: false,
  },
  {
    id: 'WebSearchTool',
    name: 'web_search',
    displayName: 'Web Search',
    stopping: false,
    citeable: true,
    mergeableField: 'queries',
    streamsArgumentDeltas: false,
  },
  {
    id: 'OpenURLTool',
    name: 'open_url',
    displayName: 'Open URL',
    stopping: false,
    citeable: true,
    mergeableField: 'urls',
    streamsArgumentDeltas: false,
  },
  {
    id: 'PythonTool',
    // Not `python`: OpenAI reserves that function name and rejects it server-side (Onyx renamed it too).
    name: 'run_python',
    displayName: 'Code Interpreter',
    stopping: false,
    citeable: false,
    streamsArgumentDeltas: true,
  },
  {
    id: 'ImageGenerationTool',
    name: 'generate_image',
    displayName: 'Image Generation',
    stopping: true,
    citeable: false,
    streamsArgumentDeltas: false,
  },
  {
    id: 'FileReaderTool',
    name: 'read_file',
    displayName: 'File Reader',
    stopping: false,
    citeable: false,
    streamsArgumentDeltas: false,
  },
  {
    id: 'MemoryTool',
    name: 'add_memory',
    displayName: 'Memory',
    stopping: false,
    citeable: false,
    streamsArgumentDeltas: false,
  },
  {
    id: 'CodingAgentTool',
    name: 'coding_agent',
    displayName: 'Coding Agent',
    stopping: false,
    citeable: false,
    streamsArgumentDeltas: false,
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

/** LLM names of tools whose run ends the loop. */
export const STOPPING_TOOLS: ReadonlySet<string> = new Set(
  BUILT_IN_TOOLS.filter((entry) => entry.stopping).map((entry) => entry.name),
);

/** LLM names of tools that produce citeable documents. */
export const CITEABLE_TOOLS: ReadonlySet<string> = new Set(
  BUILT_IN_TOOLS.filter((entry) => entry.citeable).map((entry) => entry.name),
);

/** LLM name → the list field merged when the tool is called several times in one cycle. */
export const MERGEABLE_TOOL_FIELDS: ReadonlyMap<string, MergeableField> = new Map(
  BUILT_IN_TOOLS.flatMap((entry) =>
    entry.mergeableField ? [[entry.name, entry.mergeableField] as const] : [],
  ),
);

export type { AvailabilityOutcome } from './adapt-tool.ts';
export { adaptTool, checkAvailability } from './adapt-tool.ts';
export type { AssemblyLogger } from './assembly-logger.ts';
export type {
  BuiltInToolFactory,
  BuiltInToolFactoryContext,
  ConstructToolsOptions,
  ToolAssembly,
} from './construct-tools.ts';
export { constructTools, MEMORY_TOOL_ID, SEARCH_TOOL_ID } from './construct-tools.ts';
export { createStorageMcpTokenStore } from './create-storage-mcp-token-store.ts';
export type { AssemblyMcpOptions } from './load-mcp-server-tools.ts';
export type { ToolNameCandidate } from './resolve-tool-names.ts';
export { resolveToolNames } from './resolve-tool-names.ts';
export type { SkippedTool, SkipReason } from './skipped-tool.ts';
export { toMcpServerConfig } from './to-mcp-server-config.ts';
export type { ToolAssemblyCache, ToolAssemblyCacheOptions } from './tool-assembly-cache.ts';
export { createToolAssemblyCache } from './tool-assembly-cache.ts';

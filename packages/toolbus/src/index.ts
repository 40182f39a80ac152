// The umbrella package: `import { runChatTurn, defineTool } from 'toolbus'`. It re-exports what a library user
// needs of the contract (@toolbus/spec), the tool bus (@toolbus/core), MCP and OpenAPI; every name here is listed on
// purpose. The whole MCP and OpenAPI surfaces are at `toolbus/mcp` and `toolbus/openapi`, the scripted model server
// for tests at `toolbus/testing`.

export type { ConstructToolsOptions, ToolAssembly } from '@toolbus/assembly';
export { constructTools } from '@toolbus/assembly';
export type {
  CodingAgentLimits,
  CodingAgentOutcome,
  CodingAgentPrompts,
  CodingAgentToolOptions,
  RepositoryErrorCode,
  RepositoryHost,
} from '@toolbus/coding-agent';
export {
  createCodingAgentTool,
  DEFAULT_CODING_AGENT_LIMITS,
  DEFAULT_CODING_AGENT_PROMPTS,
  GITHUB_REPOSITORY_HOST,
  RepositoryError,
} from '@toolbus/coding-agent';
export type {
  AnswerStreamFilterOptions,
  BuiltInToolEntry,
  ChatTurn,
  ChatTurnResult,
  CitationAllocatorOptions,
  DefineToolOptions,
  EmitterOptions,
  ModelProfile,
  ModelStreamEvent,
  ModelToolChoice,
  PacketSink,
  RecoveryOptions,
  RunChatTurnOptions,
  RunToolCallsOptions,
  RunToolCallsResult,
  ToolCallOutcome,
  ToolCallParserRegistry,
  ToolCallSpan,
  ToolCallSpanEnd,
  ToolCallStatus,
  ToolCallTextParser,
  ToolRunHooks,
  TurnCitationAllocator,
} from '@toolbus/core';
export {
  AnswerStreamFilter,
  BUILT_IN_TOOLS,
  BUILT_IN_TOOLS_BY_ID,
  BUILT_IN_TOOLS_BY_NAME,
  CITEABLE_TOOLS,
  collapseCitations,
  createCitationAllocator,
  createRecoveryMiddleware,
  createThinkToolStreamProcessor,
  createToolCallParserRegistry,
  DEFAULT_TOOL_TIMEOUT_MS,
  defaultModelProfiles,
  defaultToolCallParsers,
  defineTool,
  Emitter,
  extractToolCallsFromText,
  findModelProfile,
  GuardedFetchError,
  looksLikeToolCallPayload,
  mergeToolCalls,
  nullPacketSink,
  parseToolArguments,
  recoveryMiddleware,
  resolveLanguageModel,
  runChatTurn,
  runToolCalls,
  streamModelStep,
  ToolCallBatch,
  ToolCallMarkupStreamFilter,
  textStream,
  XmlToolCallStreamFilter,
} from '@toolbus/core';
export type { GuardedFetch, GuardedFetchOptions } from '@toolbus/core/node';
export { createGuardedFetch } from '@toolbus/core/node';
export type { EgressContext, EgressDecision, EgressRequest } from '@toolbus/egress';
export { decideEgress } from '@toolbus/egress';
export type { McpConnection, McpServerConfig, McpTool, McpTransportConfig } from '@toolbus/mcp';
export { connectMcpServer, McpAuthorizationRequiredError, McpConnectionError } from '@toolbus/mcp';
export type { CreateOpenApiToolsOptions } from '@toolbus/openapi';
export { createOpenApiTools, OpenApiDocumentError, OpenApiHttpError } from '@toolbus/openapi';
export type {
  DeepResearchErrorCode,
  DeepResearchLimits,
  DeepResearchPrompts,
  DeepResearchResult,
  DeepResearchTurn,
  NestedAgentOptions,
  ResearchAgentOutcome,
  RunDeepResearchOptions,
  RunTurnOptions,
  TurnResearchOptions,
} from '@toolbus/research';
export {
  checkPacketStream,
  DEEP_RESEARCH_MIN_CONTEXT_TOKENS,
  DEFAULT_DEEP_RESEARCH_LIMITS,
  DEFAULT_DEEP_RESEARCH_PROMPTS,
  DeepResearchError,
  MAX_PARALLEL_RESEARCH_AGENTS,
  runDeepResearch,
  runNestedAgent,
  runTurn,
} from '@toolbus/research';
export type { SkillBundle } from '@toolbus/skills';
export { SkillBundleError, validateSkillBundle } from '@toolbus/skills';
export type {
  AssistantToolCall,
  AvailabilityContext,
  ChatFile,
  ChatMessage,
  CitationAllocator,
  CitedDocument,
  ConcurrencyClass,
  FetchFunction,
  FileReference,
  JsonSchema,
  MergeableField,
  Packet,
  PacketObject,
  PacketType,
  Placement,
  PlacementLevel,
  RichResponse,
  SearchDocument,
  StopReason,
  Tool,
  ToolbusErrorOptions,
  ToolCall,
  ToolCallErrorOptions,
  ToolCallHistoryForm,
  ToolDefinition,
  ToolEmitter,
  ToolEndPacket,
  ToolExecutionErrorOptions,
  ToolFailureKind,
  ToolResponse,
  ToolRunContext,
} from '@toolbus/spec';
export {
  isPlacementWithin,
  nestedPlacement,
  placementKey,
  ToolbusError,
  ToolCallError,
  ToolExecutionError,
  toolCallToHistoryForm,
  toolCallToMessageString,
} from '@toolbus/spec';
export type { Storage } from '@toolbus/storage';
export { openStorage } from '@toolbus/storage';

export type {
  CitationAllocatorOptions,
  CitationAllocatorView,
  TurnCitationAllocator,
} from './citations/citation-allocator.ts';
export { createCitationAllocator } from './citations/citation-allocator.ts';
export { CitationMarkerScanner } from './citations/citation-marker-scanner.ts';
export type { CollapseCitationsOptions, CollapsedCitations } from './citations/collapse-citations.ts';
export { collapseCitations } from './citations/collapse-citations.ts';
export type { EmitterOptions } from './emitter/emitter.ts';
export { Emitter } from './emitter/emitter.ts';
export type { FencedToolEmitter } from './emitter/fenced-tool-emitter.ts';
export { createFencedToolEmitter } from './emitter/fenced-tool-emitter.ts';
export type { PacketSink } from './emitter/packet-sink.ts';
export { nullPacketSink } from './emitter/packet-sink.ts';
export type {
  ModelConfig,
  ModelEndpoint,
  ModelEndpointProbe,
  ModelEnvironment,
  ModelFinishReason,
  ModelProvider,
  ModelStallPhase,
  ModelStreamEvent,
  ModelToolChoice,
  ModelUsage,
  ProbeModelEndpointOptions,
  ResolveLanguageModelOptions,
  StreamModelStepOptions,
} from './llm/index.ts';
export {
  DEFAULT_LOCAL_MODEL,
  DEFAULT_OLLAMA_BASE_URL,
  isModelProvider,
  ModelAbortedError,
  ModelConfigurationError,
  ModelRequestError,
  ModelStallError,
  ModelStreamError,
  ModelUnavailableError,
  modelEndpointOf,
  parseModelString,
  probeModelEndpoint,
  rememberModelEndpoint,
  resolveLanguageModel,
  resolveModelEndpoint,
  streamModelStep,
} from './llm/index.ts';
export type { RecoveryMiddlewareOptions } from './middleware/recovery-middleware.ts';
export { createRecoveryMiddleware, recoveryMiddleware } from './middleware/recovery-middleware.ts';
export type {
  GuardedFetchErrorCode,
  GuardedFetchErrorOptions,
} from './net/guarded-fetch-error.ts';
export { GuardedFetchError } from './net/guarded-fetch-error.ts';
export type { TemplateArgumentFormat, TemplateDialect } from './recovery/chat-template-dialect.ts';
export { dialectFromChatTemplate } from './recovery/chat-template-dialect.ts';
export type { DelimitedJsonToolCallParserOptions } from './recovery/dialects/delimited-json-tool-call-parser.ts';
export { createDelimitedJsonToolCallParser } from './recovery/dialects/delimited-json-tool-call-parser.ts';
export type { ExtractToolCallsOptions } from './recovery/extract-tool-calls-from-text.ts';
export { extractToolCallsFromText } from './recovery/extract-tool-calls-from-text.ts';
export { looksLikeToolCallPayload } from './recovery/looks-like-tool-call-payload.ts';
export type { ModelProfile } from './recovery/model-profiles.ts';
export { defaultModelProfiles, findModelProfile } from './recovery/model-profiles.ts';
export { parseToolArguments } from './recovery/parse-tool-arguments.ts';
export type { ToolCallMarkupMarker } from './recovery/tool-call-markup-marker.ts';
export { withoutToolCallMarkupTags } from './recovery/tool-call-markup-marker.ts';
export type {
  RegisterToolCallParserOptions,
  ToolCallParserRegistry,
} from './recovery/tool-call-parser-registry.ts';
export {
  createToolCallParserRegistry,
  defaultToolCallMarkupMarkers,
  defaultToolCallParsers,
  toolCallMarkupMarkersOf,
} from './recovery/tool-call-parser-registry.ts';
export type { BuiltInToolEntry } from './registry/built-in-tools.ts';
export {
  BUILT_IN_TOOLS,
  BUILT_IN_TOOLS_BY_ID,
  BUILT_IN_TOOLS_BY_NAME,
  CITEABLE_TOOLS,
} from './registry/built-in-tools.ts';
// The answer repair's names (also `@toolbus/core/repair`).
export * from './repair-names.ts';
export { roughTokenCount } from './rough-token-count.ts';
export { mergeToolCalls } from './runner/merge-tool-calls.ts';
export { DEFAULT_TOOL_TIMEOUT_MS, runToolCalls, ToolCallBatch } from './runner/run-tool-calls.ts';
export type { RunToolCallsInput, RunToolCallsOptions } from './runner/run-tool-calls-options.ts';
export type { RunToolCallsResult, ToolCallOutcome } from './runner/tool-call-outcome.ts';
export type { ToolCallSpan, ToolCallSpanEnd, ToolCallStatus, ToolRunHooks } from './runner/tool-run-hooks.ts';
export type { AnswerStreamFilterOptions } from './streaming/answer-stream-filter.ts';
export { AnswerStreamFilter } from './streaming/answer-stream-filter.ts';
export type { ThinkToolStreamProcessor } from './streaming/think-tool-stream-processor.ts';
export { createThinkToolStreamProcessor } from './streaming/think-tool-stream-processor.ts';
export { ToolCallMarkupStreamFilter } from './streaming/tool-call-markup-stream-filter.ts';
export { XmlToolCallStreamFilter } from './streaming/xml-tool-call-stream-filter.ts';
export type { DefineToolOptions } from './tool/define-tool.ts';
export { defineTool } from './tool/define-tool.ts';
export type { ToolSearchLimits } from './tool-search/plan-toolset.ts';
export { DEFAULT_TOOL_SEARCH_LIMITS } from './tool-search/plan-toolset.ts';
export {
  CUT_OFF_TOOL_CALL_CODE,
  MALFORMED_TOOL_CALL_CODE,
  UNRUN_TOOL_CALL_CODE,
} from './turn/cut-off-tool-calls.ts';
export type { ChatTurn, ChatTurnResult, RecoveryOptions, RunChatTurnOptions } from './turn/run-chat-turn.ts';
export { DEFAULT_CORRECTIVE_MESSAGE, DEFAULT_MAX_CYCLES, runChatTurn } from './turn/run-chat-turn.ts';
export { textStream } from './turn/text-stream.ts';
export type {
  TurnCycleDirective,
  TurnCycleEnd,
  TurnCycleEndHook,
  TurnCycleHook,
  TurnCycleState,
} from './turn/turn-cycle-hook.ts';

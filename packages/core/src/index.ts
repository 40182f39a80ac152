export type {
  CitationAllocatorOptions,
  CitationAllocatorView,
  TurnCitationAllocator,
} from './citations/citation-allocator.ts';
export { createCitationAllocator } from './citations/citation-allocator.ts';
export { CitationMarkerScanner } from './citations/citation-marker-scanner.ts';
export type { CollapsedCitations } from './citations/collapse-citations.ts';
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
  ToLanguageModelPromptOptions,
} from './llm/index.ts';
export {
  DEFAULT_LOCAL_MODEL,
  DEFAULT_OLLAMA_BASE_URL,
  isModelProvider,
  MISSING_TOOL_RESULT_TEXT,
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
  toLanguageModelPrompt,
  toLanguageModelToolChoice,
  toLanguageModelTools,
} from './llm/index.ts';
export type {
  AddressCheck,
  AddressPolicy,
  CheckAddressContext,
  CompiledAddressPolicy,
  GuardLevel,
} from './net/check-address.ts';
export {
  checkAddress,
  checkHostName,
  cloudMetadataHostNames,
  compileAddressPolicy,
} from './net/check-address.ts';
export type { AddressCategory, AddressClassification, EmbeddedIpv4Form } from './net/classify-address.ts';
export { classifyAddress, cloudMetadataAddresses } from './net/classify-address.ts';
export type { GuardedConnect, GuardedLookup, LookupAddress } from './net/guarded-connector.ts';
export type {
  GuardedFetch,
  GuardedFetchOptions,
} from './net/guarded-fetch.ts';
export { createGuardedFetch } from './net/guarded-fetch.ts';
export type {
  GuardedFetchErrorCode,
  GuardedFetchErrorOptions,
} from './net/guarded-fetch-error.ts';
export { GuardedFetchError } from './net/guarded-fetch-error.ts';
export type { IpHostLiteral, IpHostLiteralFields, ParsedHost } from './net/parse-host-literal.ts';
export { parseHostLiteral } from './net/parse-host-literal.ts';
export type { DelimitedJsonToolCallParserOptions } from './recovery/dialects/delimited-json-tool-call-parser.ts';
export { createDelimitedJsonToolCallParser } from './recovery/dialects/delimited-json-tool-call-parser.ts';
export type { ExtractToolCallsOptions } from './recovery/extract-tool-calls-from-text.ts';
export {
  extractLocatedToolCallsFromText,
  extractToolCallsFromText,
} from './recovery/extract-tool-calls-from-text.ts';
export type {
  ExtractedToolCall,
  LocatedToolCall,
  ToolCallTextParser,
} from './recovery/extracted-tool-call.ts';
export { looksLikeToolCallPayload } from './recovery/looks-like-tool-call-payload.ts';
export { parseToolArguments } from './recovery/parse-tool-arguments.ts';
export type { RecoveryMiddlewareOptions } from './recovery/recovery-middleware.ts';
export { createRecoveryMiddleware, recoveryMiddleware } from './recovery/recovery-middleware.ts';
export type {
  RegisterToolCallParserOptions,
  ToolCallParserRegistry,
} from './recovery/tool-call-parser-registry.ts';
export {
  createToolCallParserRegistry,
  defaultToolCallParsers,
} from './recovery/tool-call-parser-registry.ts';
export type { BuiltInToolEntry, MergeableField } from './registry/built-in-tools.ts';
export {
  BUILT_IN_TOOLS,
  BUILT_IN_TOOLS_BY_ID,
  BUILT_IN_TOOLS_BY_NAME,
  CITEABLE_TOOLS,
  MERGEABLE_TOOL_FIELDS,
  STOPPING_TOOLS,
} from './registry/built-in-tools.ts';
export type { ClassifiedFailure } from './runner/failure-responses.ts';
export { classifyToolFailure, failureResponse } from './runner/failure-responses.ts';
export type { MergedToolCalls } from './runner/merge-tool-calls.ts';
export { mergeToolCalls } from './runner/merge-tool-calls.ts';
export type { RunToolCallsOptions, RunToolCallsResult, ToolCallOutcome } from './runner/run-tool-calls.ts';
export { DEFAULT_TOOL_TIMEOUT_MS, runToolCalls, ToolCallBatch } from './runner/run-tool-calls.ts';
export type { ToolCallSpan, ToolCallSpanEnd, ToolCallStatus, ToolRunHooks } from './runner/tool-run-hooks.ts';
export type { ArgumentDeltaStreamer, ArgumentDeltas } from './streaming/argument-delta-streamer.ts';
export { createArgumentDeltaStreamer } from './streaming/argument-delta-streamer.ts';
export type { ThinkToolStreamProcessor } from './streaming/think-tool-stream-processor.ts';
export { createThinkToolStreamProcessor } from './streaming/think-tool-stream-processor.ts';
export type { ToolCallMarkupMarker } from './streaming/tool-call-markup-stream-filter.ts';
export {
  defaultToolCallMarkupMarkers,
  functionCallsMarker,
  ToolCallMarkupStreamFilter,
  XmlToolCallStreamFilter,
} from './streaming/tool-call-markup-stream-filter.ts';
export type { DefineToolOptions } from './tool/define-tool.ts';
export { defineTool } from './tool/define-tool.ts';
export { exampleArgumentsFromSchema } from './tool/example-arguments.ts';
export type { ArgumentIssue, InvalidArgumentsErrorOptions } from './tool/invalid-arguments-error.ts';
export { invalidArgumentsError } from './tool/invalid-arguments-error.ts';
export type { LlmStepResult, RunLlmStepOptions } from './turn/llm-step.ts';
export { runLlmStep } from './turn/llm-step.ts';
export type { RecoveryTrigger } from './turn/recover-step-tool-calls.ts';
export { recoverStepToolCalls, recoveryTrigger } from './turn/recover-step-tool-calls.ts';
export type { ChatTurn, ChatTurnResult, RecoveryOptions, RunChatTurnOptions } from './turn/run-chat-turn.ts';
export { DEFAULT_CORRECTIVE_MESSAGE, DEFAULT_MAX_CYCLES, runChatTurn } from './turn/run-chat-turn.ts';

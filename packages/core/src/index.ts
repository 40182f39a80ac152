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
  parseModelString,
  probeModelEndpoint,
  resolveLanguageModel,
  resolveModelEndpoint,
  streamModelStep,
  toLanguageModelPrompt,
  toLanguageModelToolChoice,
  toLanguageModelTools,
} from './llm/index.ts';
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
export { parseToolArguments } from './recovery/parse-tool-arguments.ts';
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

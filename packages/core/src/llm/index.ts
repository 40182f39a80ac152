export type { ModelConfig, ModelProvider } from './model-config.ts';
export { isModelProvider, parseModelString } from './model-config.ts';
export { modelEndpointOf, rememberModelEndpoint } from './model-endpoint-registry.ts';
export type { ModelStallPhase } from './model-errors.ts';
export {
  ModelAbortedError,
  ModelConfigurationError,
  ModelRequestError,
  ModelStallError,
  ModelStreamError,
  ModelUnavailableError,
} from './model-errors.ts';
export type { ModelFinishReason, ModelStreamEvent, ModelUsage } from './model-stream-event.ts';
export type { ModelEndpointProbe, ProbeModelEndpointOptions } from './probe-model-endpoint.ts';
export { probeModelEndpoint } from './probe-model-endpoint.ts';
export type { ResolveLanguageModelOptions } from './resolve-language-model.ts';
export { resolveLanguageModel } from './resolve-language-model.ts';
export type { ModelEndpoint, ModelEnvironment } from './resolve-model-endpoint.ts';
export {
  DEFAULT_LOCAL_MODEL,
  DEFAULT_OLLAMA_BASE_URL,
  resolveModelEndpoint,
} from './resolve-model-endpoint.ts';
export type { StreamModelStepOptions } from './stream-model-step.ts';
export { streamModelStep } from './stream-model-step.ts';
export type { ToLanguageModelPromptOptions } from './to-language-model-prompt.ts';
export { MISSING_TOOL_RESULT_TEXT, toLanguageModelPrompt } from './to-language-model-prompt.ts';
export type { ModelToolChoice } from './to-language-model-tools.ts';
export { toLanguageModelToolChoice, toLanguageModelTools } from './to-language-model-tools.ts';

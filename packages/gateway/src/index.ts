export { MessagesRequestError, messagesToChatCompletions } from './anthropic-request.ts';
export type { AnthropicStreamWriter } from './anthropic-response.ts';
export { chatCompletionToMessage } from './anthropic-response.ts';
export type { ChatCompletionRepairOptions, RecoveryReport } from './chat-completion-repair.ts';
export { ChatCompletionStreamRepair, repairChatCompletion } from './chat-completion-repair.ts';
export * from './gateway-options.ts';
export type { GatewayHandler, RunningGateway } from './gateway-server.ts';
export {
  createGatewayHandler,
  GATEWAY_PATH_PREFIXES,
  GATEWAY_PATHS,
  startGateway,
} from './gateway-server.ts';
export type { ResolvedModel } from './model-aliases.ts';
export { MODEL_HEADER, ModelAliases } from './model-aliases.ts';
export { RECOVERY_HEADER, RECOVERY_REASON_HEADER } from './recovery-headers.ts';
export { GatewayConfigError } from './upstream.ts';

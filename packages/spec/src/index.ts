export type { AssistantToolCall, ChatFile, ChatMessage } from './chat-message.ts';
export type { CitationAllocator } from './citation-allocator.ts';
export type { CitationCheck, CitationVerdict } from './citation-check.ts';
export { coalesceTextDeltas } from './coalesce-text-deltas.ts';
export type {
  CreateSessionRequest,
  CreateSessionResponse,
  ErrorResponse,
  ExecuteRequest,
  ExecuteResponse,
  ExecutionFile,
  HealthResponse,
  SessionCommandRequest,
  SessionCommandResponse,
  UploadResponse,
  WorkspaceFileInput,
} from './code-interpreter-protocol.ts';
export {
  codeInterpreterEgressTagHeader,
  codeInterpreterEgressTokenHeader,
  codeInterpreterUserHeader,
  egressTokenPreamble,
} from './code-interpreter-protocol.ts';
export type {
  ElicitationAnswer,
  ElicitationAsker,
  ElicitationField,
  ElicitationQuestion,
  ElicitationResolution,
  ElicitationSchema,
  ElicitationValue,
} from './elicitation.ts';
export { defaultElicitationTimeoutMs } from './elicitation.ts';
export type { CheckedElicitationContent } from './elicitation-content.ts';
export {
  checkElicitationContent,
  elicitationChoices,
  elicitationItemChoices,
} from './elicitation-content.ts';
export type { ToolCallErrorOptions } from './errors/tool-call-error.ts';
export { ToolCallError } from './errors/tool-call-error.ts';
export type { ToolExecutionErrorOptions } from './errors/tool-execution-error.ts';
export { ToolExecutionError } from './errors/tool-execution-error.ts';
export type { ToolbusErrorOptions } from './errors/toolbus-error.ts';
export { hasErrorMarker, ToolbusError } from './errors/toolbus-error.ts';
export type { FetchFunction } from './fetch-function.ts';
export type { FoldedAnswer } from './fold-answer.ts';
export { foldAnswer, nextMessageText } from './fold-answer.ts';
export type { DroppedHeader, IllegalHeaderReason } from './http-header-field.ts';
export {
  dropIllegalHeaders,
  illegalHeaderReason,
  isLegalHeaderName,
  isLegalHeaderValue,
} from './http-header-field.ts';
export { isPlainObject } from './is-plain-object.ts';
export type {
  McpCallRelay,
  McpLogLevel,
  McpLogMessage,
  McpResultContent,
} from './mcp-call-relay.ts';
export { isMcpLogLevel, mcpLogLevelPasses, mcpLogLevels } from './mcp-call-relay.ts';
export type { DefinedFields } from './omit-undefined.ts';
export { omitUndefined } from './omit-undefined.ts';
export type { OpenApiAuth } from './openapi-auth.ts';
export type {
  ApprovalResolution,
  ApprovalSubject,
  FileReference,
  Packet,
  PacketObject,
  PacketType,
  StopReason,
  ToolCallStatus,
  ToolEndPacket,
} from './packet.ts';
export { packetJson } from './packet-json.ts';
export type { Placement, PlacementLevel } from './placement.ts';
export { isPlacementWithin, nestedPlacement, placementKey } from './placement.ts';
export type { LimitedBody } from './read-limited-body.ts';
export { readLimitedBody } from './read-limited-body.ts';
export type { CitedDocument, SearchDocument } from './search-document.ts';
export type { AvailabilityContext, ConcurrencyClass, MergeableField, Tool, ToolRunContext } from './tool.ts';
export type { ToolCall, ToolCallHistoryForm } from './tool-call.ts';
export { toolCallToHistoryForm, toolCallToMessageString } from './tool-call.ts';
export type { JsonSchema, ToolDefinition } from './tool-definition.ts';
export type { ToolEmitter } from './tool-emitter.ts';
export { maxToolNameLength, sanitizeToolName, toolNamePattern } from './tool-name.ts';
export type { RichResponse, ToolFailureKind, ToolResponse } from './tool-response.ts';
export type { WarningLogger } from './warning-logger.ts';
export { consoleWarningLogger } from './warning-logger.ts';

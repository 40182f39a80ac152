export type {
  ApprovalChoice,
  ApprovalPacketSink,
  TurnApprovals,
} from './approvals/approval-hub.ts';
export { ApprovalHub } from './approvals/approval-hub.ts';
export { approvalPayloadPreview, maxApprovalPreviewCharacters } from './approvals/approval-preview.ts';
export type {
  ConnectedAppActor,
  ConnectedAppInput,
  ConnectedAppSummary,
} from './apps/connected-app-admin.ts';
export { ConnectedAppAdmin, OTHER_ACTION_NAME } from './apps/connected-app-admin.ts';
export type { ApiKeyView } from './auth/access-service.ts';
export { AccessService, CSRF_HEADER, SESSION_COOKIE, scopesOfRole } from './auth/access-service.ts';
export { LOCAL_USER_EMAIL } from './auth/local-auth.ts';
export type { OrganizationMemberView, OrganizationView } from './auth/organization-service.ts';
export { OrganizationService, resolveOrganization } from './auth/organization-service.ts';
export { parsePublicOrigin } from './auth/public-origin.ts';
export type { TurnSkills } from './built-in-tools/built-in-tool-factories.ts';
export { builtInToolFactories } from './built-in-tools/built-in-tool-factories.ts';
export type { BuiltInToolSettings } from './built-in-tools/built-in-tool-settings.ts';
export type { ConfiguredInterpreter } from './built-in-tools/configured-interpreter.ts';
export { configuredInterpreter } from './built-in-tools/configured-interpreter.ts';
export type {
  InProcessSandbox,
  InProcessSandboxOptions,
  InProcessSandboxTurn,
  SandboxSkills,
} from './built-in-tools/in-process-sandbox.ts';
export { createInProcessSandbox } from './built-in-tools/in-process-sandbox.ts';
export { toolLimitsForModel } from './built-in-tools/tool-limits-for-model.ts';
export type { ChatDetail, ChatTurnView, SendMessageInput, StartedTurn } from './chats/chat-service.ts';
export { ChatService } from './chats/chat-service.ts';
export { TITLE_INSTRUCTION } from './chats/chat-titles.ts';
export type { LiveTurn } from './chats/live-turn.ts';
export type { PacketStreamFormat } from './chats/packet-stream-response.ts';
export { HEARTBEAT_INTERVAL_MS, wirePacket } from './chats/packet-stream-response.ts';
export type { StartTurnOptions } from './chats/turn-runner.ts';
export {
  ABANDONED_TURN_REASON,
  INTERRUPTED_TURN_REASON,
  NOT_QUEUED_TURN_REASON,
  STORAGE_FAILED_TURN_REASON,
  TurnRunner,
  WORKER_LOST_TURN_REASON,
} from './chats/turn-runner.ts';
export type { ToolbusServer } from './create-server.ts';
export { createServer } from './create-server.ts';
export type { RemoteEgressTokensOptions } from './egress/remote-egress-tokens.ts';
export { egressTokenQueueAllowanceMs, remoteEgressTokens } from './egress/remote-egress-tokens.ts';
export type { SandboxEgress, SandboxEgressOptions } from './egress/sandbox-egress.ts';
export {
  hasConnectedApps,
  startSandboxEgress,
  startSandboxEgressIfConnected,
  storageEgressCatalogue,
} from './egress/sandbox-egress.ts';
export { storageEgressSessions } from './egress/storage-egress-sessions.ts';
export type { TurnElicitations } from './elicitations/elicitation-hub.ts';
export { ElicitationHub } from './elicitations/elicitation-hub.ts';
export { healthOnlyServer } from './http/health-only-server.ts';
export type { ApiKeyScope, Principal } from './http/principal.ts';
export { API_KEY_SCOPES, ORGANIZATION_HEADER, ownsRow } from './http/principal.ts';
export type { RouteAccess, RouteDefinition, RouteInput, RouteResponse } from './http/route-registry.ts';
export { RouteRegistry } from './http/route-registry.ts';
export type { ServerErrorCode, ServerErrorOptions } from './http/server-error.ts';
export { ServerError, serverErrorStatus } from './http/server-error.ts';
export { mountWebApp, WEB_APP_CONTENT_SECURITY_POLICY } from './http/web-app-routes.ts';
export type { DocumentAdminOptions } from './library/document-admin.ts';
export { DocumentAdmin } from './library/document-admin.ts';
export type {
  LibraryAdminOptions,
  McpServerView,
  McpToolReview,
  SkillUploadReview,
} from './library/library-admin.ts';
export { LibraryAdmin } from './library/library-admin.ts';
export type {
  LibrarySettingKey,
  LibrarySettings,
  LibrarySettingsBackend,
} from './library/library-settings.ts';
export { LIBRARY_SETTING_KEYS, storageSettingsBackend } from './library/library-settings.ts';
export type { McpClientMetadata } from './library/mcp-client-metadata.ts';
export { resolveMcpClientMetadata } from './library/mcp-client-metadata.ts';
export type {
  McpConnectionStatus,
  McpConnectStart,
  McpOAuthServiceOptions,
} from './library/mcp-oauth-service.ts';
export { MCP_OAUTH_CALLBACK_PATH, McpOAuthService } from './library/mcp-oauth-service.ts';
export type { SkillAdminOptions } from './library/skill-admin.ts';
export { SkillAdmin } from './library/skill-admin.ts';
export { UserDataService } from './library/user-data-service.ts';
export type { ListeningServer, ListenOptions } from './listen.ts';
export { listen } from './listen.ts';
export type { HealthComponent, HealthComponentState } from './observability/health-component.ts';
export type { ApprovalAskHandler, ApprovalAsks } from './scale-out/approval-asks.ts';
export { approvalBrokerOverAsks, InProcessApprovalAsks, noTurnForAsk } from './scale-out/approval-asks.ts';
export type { ApprovalRelay, WaitingApproval } from './scale-out/approval-relay.ts';
export { InProcessApprovalRelay } from './scale-out/approval-relay.ts';
export type { RequestRateLimit } from './scale-out/request-rate-limit.ts';
export { InProcessRequestRateLimit } from './scale-out/request-rate-limit.ts';
export type { AbandonedTurnSweepTiming, ScaleOutBackend } from './scale-out/scale-out-backend.ts';
export type { PacketLogRead, SharedTurnPacketLog } from './scale-out/shared-turn-packet-log.ts';
export type { SingleFlightLock, SingleFlightOptions } from './scale-out/single-flight-lock.ts';
export { InProcessSingleFlightLock, singleFlight } from './scale-out/single-flight-lock.ts';
export type { TurnDelivery, TurnJob, TurnQueue, TurnRequest } from './scale-out/turn-queue.ts';
export type { TurnSlots } from './scale-out/turn-slots.ts';
export { InProcessTurnSlots } from './scale-out/turn-slots.ts';
export type { TurnStopSignal } from './scale-out/turn-stop-signal.ts';
export type { ServerLogger } from './server-logger.ts';
export { createJsonLogger, silentLogger } from './server-logger.ts';
export type {
  BuiltInToolContext,
  ServerAuthMode,
  ServerLimits,
  ServerOptions,
} from './server-options.ts';
export { DEFAULT_SYSTEM_PROMPT } from './server-options.ts';
export { SERVER_API_VERSION } from './server-routes.ts';

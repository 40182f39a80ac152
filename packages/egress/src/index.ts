export { applyInjectedHeaders, proxyOnlyHeaderNames } from './decision/apply-injected-headers.ts';
export * from './decision/approval-broker.ts';
export type {
  CheckEgressDestinationOptions,
  EgressDestination,
  EgressHostResolver,
} from './decision/check-egress-destination.ts';
export { checkEgressDestination } from './decision/check-egress-destination.ts';
export type { JsonRpcBodyClass } from './decision/classify-json-rpc-body.ts';
export { classifyJsonRpcBody, plumbingMethods } from './decision/classify-json-rpc-body.ts';
export type { CredentialRequest, CredentialResolver } from './decision/credential-resolver.ts';
export { CredentialUnavailableError } from './decision/credential-unavailable-error.ts';
export { decideEgress, proxyAuthorizationUser } from './decision/decide-egress.ts';
export type { CredentialDispatch } from './decision/dispatch-credentials.ts';
export { dispatchCredentials } from './decision/dispatch-credentials.ts';
export type { EgressBlockBody, EgressBlockCode } from './decision/egress-block.ts';
export { egressBlockBody, egressBlockCodes } from './decision/egress-block.ts';
export type { ConnectedApp, ConnectedAppAction, EgressMcpServer } from './decision/egress-catalogue.ts';
export type { EgressContext } from './decision/egress-context.ts';
export { defaultApprovalTimeoutMs, maxEgressBodyBytes } from './decision/egress-context.ts';
export type * from './decision/egress-decision.ts';
export type { EgressLogger, EgressLogValue } from './decision/egress-logger.ts';
export { formatEgressLogLine, shortId } from './decision/egress-logger.ts';
export type { EgressAction, EgressPolicy } from './decision/egress-policy.ts';
export type { EgressHeader, EgressIdentity, EgressRequest } from './decision/egress-request.ts';
export type { ConnectedAppMatch } from './decision/match-connected-app.ts';
export { compileAnchoredPattern, matchConnectedApp } from './decision/match-connected-app.ts';
export type { McpServerMatch } from './decision/match-mcp-server.ts';
export { matchMcpServer, normalizeRequestPath } from './decision/match-mcp-server.ts';
export type { CredentialTemplateValues } from './decision/render-credential-template.ts';
export { renderCredentialTemplate } from './decision/render-credential-template.ts';
export type { ConnectedAppCredentialSource } from './resolvers/create-connected-app-resolver.ts';
export { createConnectedAppResolver } from './resolvers/create-connected-app-resolver.ts';
export type { McpServerResolverOptions } from './resolvers/create-mcp-server-resolver.ts';
export { createMcpServerResolver } from './resolvers/create-mcp-server-resolver.ts';

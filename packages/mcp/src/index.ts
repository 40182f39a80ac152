export type { CompleteMcpOAuthOptions } from './complete-mcp-oauth.ts';
export { completeMcpOAuth } from './complete-mcp-oauth.ts';
export type {
  ConnectMcpServerOptions,
  McpConnection,
  McpOAuthOptions,
  McpToolsChangedListener,
} from './connect-mcp-server.ts';
export { connectMcpServer } from './connect-mcp-server.ts';
export type {
  ConvertCallToolResultOptions,
  ConvertedToolResult,
  McpContentBlock,
} from './convert-call-tool-result.ts';
export { convertCallToolResult } from './convert-call-tool-result.ts';
export type { CreateMcpToolOptions, McpCallToolResult, McpTool, McpToolCaller } from './create-mcp-tool.ts';
export { createMcpTool } from './create-mcp-tool.ts';
export type { McpTransportKind } from './create-mcp-transport.ts';
export { disambiguatedMcpToolName } from './disambiguated-mcp-tool-name.ts';
export type { McpAuthorizationRequiredErrorOptions } from './errors/mcp-authorization-required-error.ts';
export { McpAuthorizationRequiredError } from './errors/mcp-authorization-required-error.ts';
export type { McpConnectionErrorCode, McpConnectionErrorOptions } from './errors/mcp-connection-error.ts';
export { McpConnectionError } from './errors/mcp-connection-error.ts';
export type { McpElicitationHandler } from './mcp-elicitation.ts';
export { McpElicitationRouter, mcpElicitationCapabilities } from './mcp-elicitation.ts';
export type { McpFileStore } from './mcp-file-store.ts';
export type { CheckedMcpHeaderTemplate, DroppedTemplateHeader } from './mcp-header-template.ts';
export {
  checkMcpHeaderTemplate,
  MAX_MCP_CREDENTIAL_VALUE_LENGTH,
  MCP_BUILT_IN_PLACEHOLDERS,
  mcpBuiltInValues,
  mcpCredentialValuesProblem,
} from './mcp-header-template.ts';
export type { McpLogger } from './mcp-logger.ts';
export { consoleMcpLogger } from './mcp-logger.ts';
export type { McpProgress, McpProgressListener } from './mcp-progress.ts';
export { describeMcpProgress } from './mcp-progress.ts';
export type { McpRefreshLock } from './mcp-refresh-lock.ts';
export { inProcessMcpRefreshLock } from './mcp-refresh-lock.ts';
export type { McpAuthConfig, McpServerConfig, McpTransportConfig } from './mcp-server-config.ts';
export type { McpOAuthRecord, McpTokenStore } from './mcp-token-store.ts';
export { createInMemoryMcpTokenStore } from './mcp-token-store.ts';
export type { McpToolDescriptor } from './mcp-tool-descriptor.ts';
export type { McpHeaderLayers, MergeMcpHeadersOptions } from './merge-mcp-headers.ts';
export {
  isStructuralMcpHeader,
  MCP_DENYLISTED_REQUEST_HEADERS,
  MCP_STRUCTURAL_HEADERS,
  mergeMcpHeaders,
} from './merge-mcp-headers.ts';
export { normalizeInputSchema } from './normalize-input-schema.ts';
export type { ProviderInputSchema } from './provider-input-schema.ts';
export { providerInputSchema } from './provider-input-schema.ts';
export type { RenderedMcpHeaders, RenderMcpHeaderTemplatesOptions } from './render-mcp-header-templates.ts';
export { placeholdersOf, renderMcpHeaderTemplates } from './render-mcp-header-templates.ts';
export type { StoreOAuthClientProviderOptions } from './store-oauth-client-provider.ts';
export { StoreOAuthClientProvider } from './store-oauth-client-provider.ts';
export { toolDefinitionHash } from './tool-definition-hash.ts';

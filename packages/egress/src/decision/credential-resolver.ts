import type { JsonRpcBodyClass } from './classify-json-rpc-body.ts';
import type { ConnectedApp } from './egress-catalogue.ts';
import type { EgressIdentity } from './egress-request.ts';
import type { McpServerMatch } from './match-mcp-server.ts';

/** What a credential resolver is told about a request. */
export interface CredentialRequest {
  readonly url: URL;
  readonly method: string;
  readonly identity: EgressIdentity;
  /** The connected app the request was attributed to. */
  readonly app?: ConnectedApp;
  /** The MCP attribution, when the request's origin belongs to an MCP server this user can reach. */
  readonly mcp?: {
    readonly match: McpServerMatch;
    readonly body: JsonRpcBodyClass;
    /** True when the approval gate evaluated (and allowed) this exact server's tool call. */
    readonly gated: boolean;
  };
}

/**
 * Adds credentials to one family of destinations. `claims` is cheap and decides ownership (the first resolver
 * that claims a request owns it; one that throws is skipped); `resolve` returns the headers to set (empty: claimed,
 * nothing to add) or throws `CredentialUnavailableError`, which blocks the request.
 */
export interface CredentialResolver {
  /** Short name written to logs (`api_token`, `mcp_server`, `connected_app`). */
  readonly name: string;
  claims(request: CredentialRequest): boolean | Promise<boolean>;
  resolve(request: CredentialRequest): Promise<Readonly<Record<string, string>>>;
}

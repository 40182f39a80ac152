/** How toolbus reaches an MCP server. */
export type McpTransportConfig =
  | {
      readonly type: 'stdio';
      readonly command: string;
      readonly args?: readonly string[];
      /** Added to a minimal default environment (PATH, HOME, ...); the parent's secrets are never inherited. */
      readonly env?: Readonly<Record<string, string>>;
      readonly cwd?: string;
    }
  | { readonly type: 'streamable-http'; readonly url: string }
  | { readonly type: 'sse'; readonly url: string }
  /** Streamable HTTP first; falls back to the older HTTP+SSE transport when the server does not speak it. */
  | { readonly type: 'auto'; readonly url: string };

/** How toolbus authenticates to an MCP server. */
export type McpAuthConfig =
  | { readonly type: 'none' }
  /**
   * API keys and other headers (e.g. `Authorization: Bearer {token}`, `X-Api-Key: {api_key}`), set by the admin or
   * user. Values are templates filled from `credentials` (see `renderMcpHeaderTemplates`): a header whose
   * placeholder has no value is left out; `{{` and `}}` are literal braces.
   */
  | {
      readonly type: 'headers';
      readonly headers: Readonly<Record<string, string>>;
      /** The values the templates are filled from: the user's stored credentials, an admin's API key. Secret. */
      readonly credentials?: Readonly<Record<string, string>>;
    }
  /** OAuth 2.1 through the SDK: discovery, dynamic client registration, PKCE, refresh; tokens per user per server. */
  | {
      readonly type: 'oauth';
      /** Scope to ask for; by default the resource's advertised scopes. */
      readonly scope?: string;
      /** `client_name` sent at dynamic client registration. */
      readonly clientName?: string;
      /** Pre-registered client credentials, for authorization servers without dynamic registration. Secret. */
      readonly client?: { readonly id: string; readonly secret?: string };
    };

/** One configured MCP server (a row of the MCP servers table). */
export interface McpServerConfig {
  /** Stable id: keys the token store and the tool cache. */
  readonly id: string;
  /** Human name; also the `{server}` part of disambiguated tool names (`mcp_{server}_{tool}`). */
  readonly name: string;
  readonly transport: McpTransportConfig;
  /** `{ type: 'none' }` when absent. */
  readonly auth?: McpAuthConfig;
  /**
   * The admin's per-user header template (`Authorization: Bearer {api_key}`, `X-User: {user_email}`) and the values
   * that fill it: one user's own, stored encrypted, and the built-ins. Its headers win over the connection's stored
   * headers of the same name (HTTP transports only). Secret.
   */
  readonly headerTemplate?: {
    readonly headers: Readonly<Record<string, string>>;
    readonly values: Readonly<Record<string, string>>;
  };
}

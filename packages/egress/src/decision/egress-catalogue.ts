import type { EgressPolicy } from './egress-policy.ts';

/** An action of a connected app, recognised by method and path. */
export interface ConnectedAppAction {
  /** Stable name, shown on approval cards and written to logs (`create_issue`). */
  readonly name: string;
  /** HTTP method it applies to; any method when absent. */
  readonly method?: string;
  /** Regular expression the request path (query removed) must match entirely. */
  readonly pathPattern: string;
  readonly policy: EgressPolicy;
}

/** An external API a user has connected, as the proxy sees it. */
export interface ConnectedApp {
  /** Ascending ids decide between apps whose patterns both match. */
  readonly id: number;
  readonly name: string;
  /** Regular expressions that the whole request URL must match (anchored at both ends). */
  readonly urlPatterns: readonly string[];
  readonly actions?: readonly ConnectedAppAction[];
  /** True when a credential is available for this app and this user; an unusable app forwards bare. */
  readonly usable: boolean;
  /** False when an administrator switched it off: it is then not matched at all (default true). */
  readonly enabled?: boolean;
}

/** An MCP server reachable from the sandbox. */
export interface EgressMcpServer {
  readonly id: string;
  readonly name: string;
  /** The server's endpoint (`https://mcp.example.com/mcp`): scheme, host and port must match exactly; its path is a prefix. */
  readonly url: string;
  /** An administrator's policy per tool name; unlisted tools need approval. */
  readonly toolPolicies?: Readonly<Record<string, EgressPolicy>>;
}

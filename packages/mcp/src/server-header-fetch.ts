import type { FetchFunction } from '@toolbus/spec';

/** Options for {@link createServerHeaderFetch}. */
export interface ServerHeaderFetchOptions {
  readonly fetch: FetchFunction;
  /** The MCP server's URL: headers are added only to requests to its origin. */
  readonly serverUrl: URL;
  /** Already merged and filtered (see `mergeMcpHeaders`); the SDK's own headers are laid over them. */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Wraps `fetch` so that requests to the MCP server's origin carry the connection's headers. The SDK's own
 * `requestInit.headers` would also be sent to the OAuth authorization server (another origin), leaking API keys;
 * this sends them to the MCP server only. Headers the SDK sets itself (session id, protocol version, content type,
 * the OAuth `Authorization`) win over ours.
 */
export function createServerHeaderFetch(options: ServerHeaderFetchOptions): FetchFunction {
  const origin = options.serverUrl.origin;
  return (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return options.fetch(input, init);
    }
    if (target.origin !== origin) return options.fetch(input, init);
    const headers = new Headers(options.headers);
    const own = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    for (const [name, value] of own) headers.set(name, value);
    return options.fetch(input, { ...init, headers });
  };
}

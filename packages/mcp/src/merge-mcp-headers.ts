import type { McpLogger } from './mcp-logger.ts';

/**
 * Headers no layer may set: hop-by-hop and framing headers (request smuggling, host-header injection) and MCP's own
 * transport headers, which the SDK manages per session. Lower-case.
 */
export const MCP_STRUCTURAL_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'proxy-connection',
  'expect',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
]);

/**
 * Headers additionally refused from per-request extras (which come from the end user's request, not from an admin):
 * proxy credentials and the user's own cookies must never travel to a third-party MCP server.
 */
export const MCP_DENYLISTED_REQUEST_HEADERS: ReadonlySet<string> = new Set([
  ...MCP_STRUCTURAL_HEADERS,
  'proxy-authorization',
  'proxy-authenticate',
  'cookie',
  'set-cookie',
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-real-ip',
]);

/** The three header layers of an MCP request, lowest priority first. */
export interface McpHeaderLayers {
  /** Extras that came with the end user's request; filtered through {@link MCP_DENYLISTED_REQUEST_HEADERS}. */
  readonly requestHeaders?: Readonly<Record<string, string>>;
  /** The connection's configured headers (API key, custom headers). */
  readonly connectionHeaders?: Readonly<Record<string, string>>;
  /** The OAuth access token as an `Authorization` value; wins over everything. */
  readonly oauthAuthorization?: string;
}

/** Options for {@link mergeMcpHeaders}. */
export interface MergeMcpHeadersOptions {
  /** Receives one warning per dropped header, naming the header (never its value). */
  readonly logger?: McpLogger;
}

const tokenPattern = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const unsafeValuePattern = /[\r\n\0]/;

/**
 * Merges the MCP header layers: request extras < connection config < OAuth token; later wins, names compared
 * case-insensitively. Drops denylisted names, names that are not HTTP tokens, and values with CR, LF or NUL, each
 * logged by name as a warning. Returns lower-case names.
 */
export function mergeMcpHeaders(
  layers: McpHeaderLayers,
  options: MergeMcpHeadersOptions = {},
): Record<string, string> {
  const merged: Record<string, string> = {};
  const apply = (
    headers: Readonly<Record<string, string>> | undefined,
    layer: 'request' | 'connection',
    denylist: ReadonlySet<string>,
  ): void => {
    if (headers === undefined) return;
    for (const [rawName, value] of Object.entries(headers)) {
      const name = rawName.toLowerCase();
      const reason = !tokenPattern.test(rawName)
        ? 'invalid-name'
        : denylist.has(name)
          ? 'denylisted'
          : typeof value !== 'string' || unsafeValuePattern.test(value)
            ? 'invalid-value'
            : undefined;
      if (reason !== undefined) {
        // JSON-escaped so that a name carrying CR/LF cannot forge log lines.
        options.logger?.warn('Dropped MCP header', { header: JSON.stringify(rawName), layer, reason });
        continue;
      }
      merged[name] = value;
    }
  };
  apply(layers.requestHeaders, 'request', MCP_DENYLISTED_REQUEST_HEADERS);
  apply(layers.connectionHeaders, 'connection', MCP_STRUCTURAL_HEADERS);
  if (layers.oauthAuthorization !== undefined && !unsafeValuePattern.test(layers.oauthAuthorization)) {
    merged.authorization = layers.oauthAuthorization;
  }
  return merged;
}

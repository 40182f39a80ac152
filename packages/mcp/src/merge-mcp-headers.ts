import { FRAMING_HEADERS, illegalHeaderReason, isLegalHeaderValue } from '@toolbus/spec';
import type { McpLogger } from './mcp-logger.ts';

/**
 * Headers no layer may set, not even the admin's connection config:
 * - framing and hop-by-hop headers (request smuggling, a body the server reads differently from us): spec's
 *   `FRAMING_HEADERS`, `proxy-connection` and `http2-settings`;
 * - encoding and content headers, which describe a body: the SDK sets the right ones on the requests that have
 *   one, and ours would be wrong on every other (a `content-type` on the GET of the event stream, a
 *   `content-encoding` the body does not have); every `content-*` name is refused (see
 *   {@link isStructuralMcpHeader}), and `accept-encoding`, which only the transport may negotiate;
 * - headers that rewrite the request target or its method at a proxy or framework (`x-original-url`,
 *   `x-rewrite-url` and their kin, `forwarded` and every `x-forwarded-*`, the method overrides);
 * - MCP's own transport headers, which the SDK manages per session.
 * Lower-case.
 */
export const MCP_STRUCTURAL_HEADERS: ReadonlySet<string> = new Set([
  ...FRAMING_HEADERS,
  'proxy-connection',
  'http2-settings',
  'content-type',
  'content-encoding',
  'content-language',
  'content-location',
  'content-range',
  'content-md5',
  'accept-encoding',
  'x-original-url',
  'x-original-uri',
  'x-rewrite-url',
  'x-override-url',
  'x-http-destinationurl',
  'x-proxy-url',
  'x-original-host',
  'x-host',
  'x-forwarded-host',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-uri',
  'x-forwarded-path',
  'x-forwarded-prefix',
  'x-forwarded-port',
  'x-forwarded-scheme',
  'x-forwarded-server',
  'forwarded',
  'x-http-method-override',
  'x-http-method',
  'x-method-override',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
]);

/** Name prefixes refused like {@link MCP_STRUCTURAL_HEADERS}: a body's description, and proxy forwarding. */
const structuralPrefixes: readonly string[] = ['content-', 'x-forwarded-'];

/** True for a (lower-case) header name no layer may set: in {@link MCP_STRUCTURAL_HEADERS} or under its prefixes. */
export function isStructuralMcpHeader(name: string): boolean {
  return MCP_STRUCTURAL_HEADERS.has(name) || structuralPrefixes.some((prefix) => name.startsWith(prefix));
}

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
  'x-real-ip',
]);

/** The header layers of an MCP request, lowest priority first. */
export interface McpHeaderLayers {
  /** Extras that came with the end user's request; filtered through {@link MCP_DENYLISTED_REQUEST_HEADERS}. */
  readonly requestHeaders?: Readonly<Record<string, string>> | undefined;
  /** The connection's configured headers (API key, custom headers). */
  readonly connectionHeaders?: Readonly<Record<string, string>> | undefined;
  /** The admin's header template filled with the user's own values (and built-ins such as `{user_email}`). */
  readonly templateHeaders?: Readonly<Record<string, string>> | undefined;
  /** The OAuth access token as an `Authorization` value; wins over everything. */
  readonly oauthAuthorization?: string | undefined;
}

/** Options for {@link mergeMcpHeaders}. */
export interface MergeMcpHeadersOptions {
  /** Receives one warning per dropped header, naming the header (never its value). */
  readonly logger?: McpLogger;
}

/**
 * Merges the MCP header layers: request extras < connection config < per-user template < OAuth token; later wins, names compared
 * case-insensitively. Drops denylisted names, names that are not HTTP tokens, and values with a byte HTTP forbids
 * (the HTTP rules are `@toolbus/spec`'s `illegalHeaderReason`), each logged by name as a warning, never failing the request. Returns
 * lower-case names.
 */
export function mergeMcpHeaders(
  layers: McpHeaderLayers,
  options: MergeMcpHeadersOptions = {},
): Record<string, string> {
  const merged: Record<string, string> = {};
  const apply = (
    headers: Readonly<Record<string, string>> | undefined,
    layer: 'request' | 'connection' | 'template',
    denylist: ReadonlySet<string>,
  ): void => {
    if (headers === undefined) return;
    for (const [rawName, value] of Object.entries(headers)) {
      const name = rawName.toLowerCase();
      const reason =
        illegalHeaderReason(rawName, value) ??
        (denylist.has(name) || isStructuralMcpHeader(name) ? 'denylisted' : undefined);
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
  apply(layers.templateHeaders, 'template', MCP_STRUCTURAL_HEADERS);
  if (layers.oauthAuthorization !== undefined) {
    if (isLegalHeaderValue(layers.oauthAuthorization)) merged.authorization = layers.oauthAuthorization;
    else
      options.logger?.warn('Dropped MCP header', {
        header: '"Authorization"',
        layer: 'oauth',
        reason: 'invalid-value',
      });
  }
  return merged;
}

import { canonicalHostName } from '@toolbus/core/net';
import type { EgressMcpServer } from './egress-catalogue.ts';

/** What {@link matchMcpServer} found. */
export type McpServerMatch =
  | { readonly kind: 'matched'; readonly server: EgressMcpServer }
  | { readonly kind: 'ambiguous'; readonly servers: readonly EgressMcpServer[] }
  /** The host belongs to a server, but the path is outside every server's prefix. */
  | { readonly kind: 'outside_prefix' }
  | { readonly kind: 'none' };

/**
 * `scheme://host:port` with the default port written out and the host in canonical form (lower case, IDNA, no
 * trailing dot), so `https://a`, `https://A.:443` compare equal.
 */
export function originKey(url: URL): string {
  const port =
    url.port === '' ? (url.protocol === 'https:' ? '443' : url.protocol === 'http:' ? '80' : '') : url.port;
  return `${url.protocol}//${canonicalHostName(url.hostname)}:${port}`;
}

/**
 * The path percent-decoded once and with `.` and `..` segments resolved, so `/mcp/../admin` and `/%6dcp` are
 * judged by where they lead. Undefined when the path does not decode.
 */
export function normalizeRequestPath(path: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  const segments: string[] = [];
  for (const segment of decoded.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join('/')}`;
}

function underPrefix(path: string, prefix: string): boolean {
  if (prefix === '/') return true;
  return path === prefix || path.startsWith(`${prefix}/`);
}

/**
 * The MCP server a request goes to: scheme, host and port must match exactly (a credential for HTTPS is never
 * put on plain HTTP), and the normalised path must lie under the server's path. The longest prefix wins; two
 * servers with the same longest prefix are ambiguous, and an ambiguous request is never given either's credential.
 */
export function matchMcpServer(servers: readonly EgressMcpServer[], url: URL): McpServerMatch {
  const origin = originKey(url);
  const sameOrigin = servers.filter((server) => {
    try {
      return originKey(new URL(server.url)) === origin;
    } catch {
      return false;
    }
  });
  if (sameOrigin.length === 0) return { kind: 'none' };
  const path = normalizeRequestPath(url.pathname);
  if (path === undefined) return { kind: 'outside_prefix' };
  let best: EgressMcpServer[] = [];
  let bestLength = -1;
  for (const server of sameOrigin) {
    const prefix = normalizeRequestPath(new URL(server.url).pathname) ?? '/';
    if (!underPrefix(path, prefix)) continue;
    if (prefix.length > bestLength) {
      best = [server];
      bestLength = prefix.length;
    } else if (prefix.length === bestLength) {
      best.push(server);
    }
  }
  const [first, ...rest] = best;
  if (first === undefined) return { kind: 'outside_prefix' };
  if (rest.length > 0) return { kind: 'ambiguous', servers: best };
  return { kind: 'matched', server: first };
}

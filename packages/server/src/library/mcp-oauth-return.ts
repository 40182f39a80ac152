import { randomBytes } from 'node:crypto';
import { cookieValue } from '../http/cookie.ts';

/**
 * The cookie that ties an MCP OAuth authorization to the browser that started it. SameSite=Lax, unlike the session
 * cookie, because the callback is a cross-site top-level navigation from the authorization server, which a Strict
 * cookie would not ride along with.
 */
export const MCP_OAUTH_BROWSER_COOKIE = 'toolbus_mcp_oauth';
/** How long the browser keeps it: longer than an authorization may take. */
export const MCP_OAUTH_BROWSER_COOKIE_SECONDS = 60 * 60;

const base = 'http://toolbus.invalid';

/**
 * The browser's binding secret from its cookie, or a new one (32 random bytes). Kept when present so that two
 * authorizations started in one browser both finish.
 */
export function browserSecretOf(cookieHeader: string | undefined): { secret: string; fresh: boolean } {
  const existing = cookieValue(cookieHeader, MCP_OAUTH_BROWSER_COOKIE);
  if (existing !== undefined && /^[A-Za-z0-9_-]{43}$/.test(existing))
    return { secret: existing, fresh: false };
  return { secret: randomBytes(32).toString('base64url'), fresh: true };
}

/**
 * `returnTo` as the callback will send the browser to it: parsed and normalised exactly as the redirect is built (a
 * `/.//evil.example` or `/%2e//evil.example` becomes `//evil.example` there), and `/` unless the result is a path
 * on this server. Checking the raw string instead is what let such paths through.
 */
export function safeReturnPath(returnTo: string | undefined): string {
  if (returnTo === undefined || !returnTo.startsWith('/')) return '/';
  let url: URL;
  try {
    url = new URL(returnTo, base);
  } catch {
    return '/';
  }
  const path = `${url.pathname}${url.search}${url.hash}`;
  return url.origin === base && isLocalPath(path) ? path : '/';
}

/** The callback's `Location`: the stored return path (normalised again) with `mcpConnected` added. */
export function callbackLocation(returnTo: string, serverId: string): string {
  const url = new URL(safeReturnPath(returnTo), base);
  url.searchParams.set('mcpConnected', serverId);
  const location = `${url.pathname}${url.search}${url.hash}`;
  return isLocalPath(location) ? location : `/?mcpConnected=${encodeURIComponent(serverId)}`;
}

/** A path a browser resolves on this origin: one leading slash, not `//` nor `/\` (browsers read both as a host). */
function isLocalPath(path: string): boolean {
  return (
    path.startsWith('/') &&
    !path.startsWith('//') &&
    !path.startsWith('/\\') &&
    !path.includes('\\') &&
    !/[\u0000-\u001f\u007f]/.test(path)
  );
}

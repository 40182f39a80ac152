import { canonicalHostName } from '@toolbus/core/net';
import type { ConnectedApp, ConnectedAppAction } from './egress-catalogue.ts';

const compiled = new Map<string, RegExp | null>();

/** The pattern compiled and anchored at both ends, or null when it is not a valid regular expression. */
export function compileAnchoredPattern(pattern: string): RegExp | null {
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    try {
      regex = new RegExp(`^(?:${pattern})$`, 'u');
    } catch {
      regex = null;
    }
    if (compiled.size > 4096) compiled.clear();
    compiled.set(pattern, regex);
  }
  return regex;
}

/** What {@link matchConnectedApp} found. */
export interface ConnectedAppMatch {
  readonly app: ConnectedApp;
  /** The app's actions this request performs (method and path match). */
  readonly actions: readonly ConnectedAppAction[];
}

/**
 * The connected app a request belongs to: the lowest-id enabled app one of whose URL patterns matches the whole
 * URL, written with its host in canonical form (lower case, IDNA, no trailing dot: `https://API.github.com./x`
 * is matched as `https://api.github.com/x`). A disabled app is not considered at all, so it never shadows an
 * enabled one. A pattern that does not compile (stored before saving checked it) is skipped alone: it matches
 * nothing, and the app's other patterns still do.
 */
export function matchConnectedApp(
  apps: readonly ConnectedApp[],
  url: URL,
  method: string,
): ConnectedAppMatch | undefined {
  const text = canonicalUrl(url).href;
  const sorted = apps.filter((app) => app.enabled !== false).sort((left, right) => left.id - right.id);
  for (const app of sorted) {
    if (!app.urlPatterns.some((pattern) => compileAnchoredPattern(pattern)?.test(text) === true)) continue;
    return { app, actions: matchActions(app.actions ?? [], url.pathname, method) };
  }
  return undefined;
}

/** The URL with its host name canonical (IP literals are canonical already). */
function canonicalUrl(url: URL): URL {
  const host = canonicalHostName(url.hostname);
  if (host === url.hostname || url.hostname.startsWith('[')) return url;
  const copy = new URL(url.href);
  copy.hostname = host;
  return copy;
}

function matchActions(
  actions: readonly ConnectedAppAction[],
  path: string,
  method: string,
): ConnectedAppAction[] {
  const upper = method.toUpperCase();
  return actions.filter((action) => {
    if (action.method !== undefined && action.method.toUpperCase() !== upper) return false;
    return compileAnchoredPattern(action.pathPattern)?.test(path) === true;
  });
}

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
 * The connected app a request belongs to: the lowest-id app one of whose URL patterns matches the whole URL.
 * An app with a pattern that does not compile is skipped entirely (a typo in one app must neither claim
 * other apps' traffic nor stop the others from matching).
 */
export function matchConnectedApp(
  apps: readonly ConnectedApp[],
  url: URL,
  method: string,
): ConnectedAppMatch | undefined {
  const text = url.href;
  const sorted = [...apps].sort((left, right) => left.id - right.id);
  for (const app of sorted) {
    const patterns = app.urlPatterns.map(compileAnchoredPattern);
    if (patterns.some((pattern) => pattern === null)) continue;
    if (!patterns.some((pattern) => pattern?.test(text) === true)) continue;
    return { app, actions: matchActions(app.actions ?? [], url.pathname, method) };
  }
  return undefined;
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

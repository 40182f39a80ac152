import type { EgressHeader } from './egress-request.ts';

/**
 * Headers the sandbox may send to the proxy but that never go upstream: the proxy's own credentials and the
 * session tag are for the proxy, and forwarding them would leak them to a third party.
 */
export const proxyOnlyHeaderNames: readonly string[] = ['proxy-authorization', 'x-toolbus-mcp-session'];

/**
 * The headers to send upstream: the request's, without the proxy-only ones, with every injected header
 * replacing all same-named ones (case-insensitively), so exactly one copy, the injected one, is left.
 */
export function applyInjectedHeaders(
  headers: readonly EgressHeader[],
  injected: Readonly<Record<string, string>>,
): EgressHeader[] {
  const replaced = new Set(Object.keys(injected).map((name) => name.toLowerCase()));
  const kept = headers.filter(([name]) => {
    const lower = name.toLowerCase();
    return !proxyOnlyHeaderNames.includes(lower) && !replaced.has(lower);
  });
  for (const [name, value] of Object.entries(injected)) kept.push([name, value]);
  return kept;
}

/** The first value of a header (case-insensitive), or undefined. */
export function headerValue(headers: readonly EgressHeader[], name: string): string | undefined {
  const lower = name.toLowerCase();
  return headers.find(([candidate]) => candidate.toLowerCase() === lower)?.[1];
}

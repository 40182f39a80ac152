/**
 * A WHATWG-fetch-compatible function: what every package that speaks HTTP takes as its `fetch` option. The
 * application passes the guarded fetch (`createGuardedFetch` from `@toolbus/core/node`), so SSRF checks apply to
 * every request a tool makes; tests pass the global `fetch` against loopback servers.
 */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

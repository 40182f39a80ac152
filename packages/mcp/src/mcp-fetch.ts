/**
 * A WHATWG-fetch-compatible function. The application passes the guarded fetch (`createGuardedFetch` from
 * @toolbus/core): every request the MCP SDK makes goes through it, OAuth discovery, registration and refresh included.
 */
export type McpFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

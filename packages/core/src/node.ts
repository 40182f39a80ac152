// Node-only parts of @toolbus/core (the guarded fetch dials through node:dns and undici), kept out of the package
// root so that the root imports anywhere; the portable address rules are `@toolbus/core/net`, and
// GuardedFetchError is on the root.

export { ChunkedBodyWriter } from './net/chunked-body-writer.ts';
export type { GuardedConnect, GuardedLookup, LookupAddress } from './net/guarded-connector.ts';
export type { GuardedFetch, GuardedFetchOptions } from './net/guarded-fetch.ts';
export { createGuardedFetch } from './net/guarded-fetch.ts';
export type { NodeHttpFetchOptions } from './net/node-http-fetch.ts';
export { createNodeHttpFetch } from './net/node-http-fetch.ts';
export type { SseEvent } from './net/sse-event-reader.ts';
export { SseEventReader, sseData } from './net/sse-event-reader.ts';

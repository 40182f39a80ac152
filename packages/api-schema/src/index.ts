// The HTTP API of `toolbus serve`, each request and response shape declared once: the server validates requests
// and documents itself (OpenAPI) with these schemas, and `@toolbus/client` and the web UI infer their types from
// them, so no copy can drift. Browser-safe: zod only.
export * from './access.ts';
export * from './chats.ts';
export * from './errors.ts';
export * from './user-data.ts';

// The HTTP API of `toolbus serve`, each request and response shape declared once: the server validates requests
// and documents itself (OpenAPI) with these schemas, and `@toolbus/client` and the web UI infer their types from
// them, so no copy can drift. Browser-safe: zod only.
export * from './access.ts';
export * from './approvals.ts';
export * from './chats.ts';
export * from './connected-apps.ts';
export * from './elicitations.ts';

export * from './library.ts';
export * from './mcp-connections.ts';
export * from './mcp-credentials.ts';
export * from './organizations.ts';
export * from './server.ts';
export * from './user-data.ts';

/**
 * How toolbus talks to an MCP server: a local process over stdio, or HTTP (Streamable HTTP, or the legacy HTTP+SSE
 * transport of the 2024-11-05 protocol). Storage keeps it on a server's row (a CHECK lists the same words) and the
 * MCP package opens the transport it names.
 */
export type McpTransport = 'stdio' | 'streamable-http' | 'sse';

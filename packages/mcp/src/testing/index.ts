// Test support for code that talks to MCP servers: a real SDK server on loopback whose tools the test controls.
export * from './loopback-mcp-server.ts';
export type { ModernMcpServer, ModernTool } from './modern-mcp-server.ts';
export { sendProgress, startModernMcpServer } from './modern-mcp-server.ts';
export * from './run-conformance-scenario.ts';

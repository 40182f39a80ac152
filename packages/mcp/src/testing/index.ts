// Test support for code that talks to MCP servers: a real SDK server on loopback whose tools the test controls.
export type {
  LoopbackMcpHandler,
  LoopbackMcpServer,
  LoopbackMcpServerOptions,
  LoopbackTool,
  LoopbackToolContext,
  RecordedRequest,
} from './loopback-mcp-server.ts';
export { createLoopbackMcpHandler, echoLoopbackTool, startLoopbackMcpServer } from './loopback-mcp-server.ts';
export type { ModernMcpServer, ModernTool } from './modern-mcp-server.ts';
export { sendProgress, startModernMcpServer } from './modern-mcp-server.ts';
export type {
  ConformanceRelease,
  ConformanceVerdict,
  ExpectedConformanceFailure,
  RunConformanceScenarioOptions,
} from './run-conformance-scenario.ts';
export {
  assertConformanceVerdict,
  conformanceSuiteEntry,
  conformanceSuiteVersion,
  runConformanceScenario,
} from './run-conformance-scenario.ts';

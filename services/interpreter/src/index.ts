export { sandboxEgressPaths, sandboxEgressPort } from './egress-forwarder-source.ts';
export type { InterpreterLimits } from './interpreter-limits.ts';
export { defaultInterpreterLimits, resolveInterpreterLimits } from './interpreter-limits.ts';
export type { InterpreterServer, InterpreterServerOptions } from './interpreter-server.ts';
export { startInterpreterServer } from './interpreter-server.ts';
export { INTERPRETER_VERSION } from './interpreter-version.ts';
export type { IsolationReport } from './probe-isolation.ts';
export type { SandboxEgressLease, SandboxEgressProvider } from './sandbox-egress.ts';

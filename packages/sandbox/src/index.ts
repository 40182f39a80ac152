export type {
  CreateSessionRequest,
  CreateSessionResponse,
  ErrorResponse,
  ExecuteRequest,
  ExecuteResponse,
  ExecutionFile,
  HealthResponse,
  SessionCommandRequest,
  SessionCommandResponse,
  UploadResponse,
  WorkspaceFileInput,
} from '@toolbus/spec';
export type * from './code-interpreter.ts';
export type { CodeInterpreterClientOptions } from './code-interpreter-client.ts';
export { CodeInterpreterClient } from './code-interpreter-client.ts';
export type { CodeInterpreterErrorOptions } from './code-interpreter-error.ts';
export { CodeInterpreterError } from './code-interpreter-error.ts';
export * from './code-interpreter-methods.ts';
export type { CodeInterpreterPoolOptions, CodeInterpreterPoolServer } from './code-interpreter-pool.ts';
export { CodeInterpreterPool } from './code-interpreter-pool.ts';
export { CodeInterpreterVersionError } from './code-interpreter-version-error.ts';
export type { ServerSentEvent } from './parse-server-sent-events.ts';
export { parseServerSentEvents } from './parse-server-sent-events.ts';
export type { SemanticVersion } from './semantic-version.ts';
export { compareSemanticVersions, parseSemanticVersion } from './semantic-version.ts';

import type {
  CreateSessionRequest,
  CreateSessionResponse,
  ExecuteRequest,
  ExecuteResponse,
  HealthResponse,
  SessionCommandRequest,
  SessionCommandResponse,
  UploadResponse,
} from '@toolbus/spec';
import type { CodeInterpreterFeature } from './code-interpreter-methods.ts';

/** Per-call options. */
export interface CodeInterpreterCallOptions {
  readonly signal?: AbortSignal;
  /** The user the call acts for, sent as the `x-toolbus-user` header: the service counts the files the call stores
   * (uploads, a run's outputs) against that user's share of its file store. */
  readonly userId?: string;
  /** What the run is for (a tool call id), sent as `x-toolbus-egress-tag`: approvals its egress asks for show there. */
  readonly egressTag?: string;
  /**
   * The run's signed egress token, sent as `x-toolbus-egress-token`: a service that relays runs to a standalone
   * egress proxy gives the run network as the token's user (a bearer value: never logged).
   */
  readonly egressToken?: string;
}

/** One event of a streamed run: output as it happens, then exactly one `result` or `error`. */
export type RunStreamEvent<Result> =
  | { readonly type: 'output'; readonly stream: 'stdout' | 'stderr'; readonly data: string }
  | { readonly type: 'result'; readonly result: Result }
  | {
      readonly type: 'error';
      readonly message: string;
      /** The stream broke before the result: the service most likely stopped, and the run died with it. */
      readonly serviceStopped?: true;
    };

/** One event of `executeStream`. */
export type ExecuteStreamEvent = RunStreamEvent<ExecuteResponse>;

/** One event of `runSessionCommandStream`. */
export type SessionCommandStreamEvent = RunStreamEvent<SessionCommandResponse>;

/** What `uploadFile` takes: raw bytes (or text, sent as UTF-8) and the name stored with them. */
export interface UploadFileOptions {
  readonly filename: string;
  readonly content: Uint8Array | Blob | string;
  readonly signal?: AbortSignal;
  /** As {@link CodeInterpreterCallOptions.userId}. */
  readonly userId?: string;
}

/**
 * The code-execution service as the tools see it: one server ({@link CodeInterpreterClient}) or several behind a
 * load balancer ({@link CodeInterpreterPool}). File and session ids are opaque: pass back exactly what a method
 * returned, to the same object.
 */
export interface CodeInterpreter {
  /** Asks `/health` now. */
  health(options?: CodeInterpreterCallOptions): Promise<HealthResponse>;
  /** True when code can run now. Never throws. */
  isAvailable(options?: CodeInterpreterCallOptions): Promise<boolean>;
  /** The server's version ('0.0.0' when it reports none); for a pool, the oldest of its reachable servers. */
  serverVersion(options?: CodeInterpreterCallOptions): Promise<string>;
  /** Whether every one of `features` (methods or optional request fields) is supported. */
  supports(...features: CodeInterpreterFeature[]): Promise<boolean>;
  /** Runs code and waits for the result. */
  execute(request: ExecuteRequest, options?: CodeInterpreterCallOptions): Promise<ExecuteResponse>;
  /** Runs code and yields its output as it happens, then the result (or an error event). */
  executeStream(
    request: ExecuteRequest,
    options?: CodeInterpreterCallOptions,
  ): AsyncIterable<ExecuteStreamEvent>;
  /** Stores a file for later runs. */
  uploadFile(options: UploadFileOptions): Promise<UploadResponse>;
  /** A stored file's bytes (inputs and files runs created). */
  downloadFile(fileId: string, options?: CodeInterpreterCallOptions): Promise<Uint8Array>;
  deleteFile(fileId: string, options?: CodeInterpreterCallOptions): Promise<void>;
  /** A workspace that keeps its files between commands. */
  createSession(
    request?: CreateSessionRequest,
    options?: CodeInterpreterCallOptions,
  ): Promise<CreateSessionResponse>;
  /** Runs `bash -c command` in a session's workspace. */
  runSessionCommand(
    sessionId: string,
    request: SessionCommandRequest,
    options?: CodeInterpreterCallOptions,
  ): Promise<SessionCommandResponse>;
  /** Runs `bash -c command` in a session's workspace and yields its output as it happens, then the result. */
  runSessionCommandStream(
    sessionId: string,
    request: SessionCommandRequest,
    options?: CodeInterpreterCallOptions,
  ): AsyncIterable<SessionCommandStreamEvent>;
  deleteSession(sessionId: string, options?: CodeInterpreterCallOptions): Promise<void>;
}

// Wire types of the code-execution protocol, version 1: what @toolbus/interpreter serves, and what Onyx's
// code-interpreter service speaks since 0.4, so the client works with either (see
// docs/decisions/differences-from-onyx.md). Field names are the wire's snake_case.

/** `GET /health`. Old servers send only `{status: 'ok'}`; a missing version reads as 0.0.0. */
export interface HealthResponse {
  readonly status: 'ok' | 'degraded' | 'error' | (string & {});
  readonly version?: string;
  /** Why the status is not ok. Older services send the same text as `message` instead. */
  readonly reason?: string;
  readonly message?: string | null;
  /** What the sandbox enforces (toolbus servers). */
  readonly isolation?: Record<string, unknown>;
  /** True when the service has a skills root and so can mount skills (toolbus servers, 1.1.0+). */
  readonly skills?: boolean;
  /** Executions running and waiting (toolbus servers). */
  readonly load?: { readonly running: number; readonly queued: number };
}

/**
 * Request header naming the user a request acts for. Optional; when present, the service's file store counts the
 * files that request stores against that user's share (uploads and a run's outputs), besides the store's total.
 */
export const codeInterpreterUserHeader = 'x-toolbus-user';

/**
 * Request header naming what a run is for (the tool call id), opaque to the service. A service that gives runs
 * network through an egress proxy hands it to the proxy's provider, so an approval the run asks for can be shown
 * at that tool call. Never trusted for identity: the socket a sandbox connection arrives on is its identity.
 */
export const codeInterpreterEgressTagHeader = 'x-toolbus-egress-tag';

/**
 * Request header carrying a run's signed egress token, minted by the server for that run when the interpreter
 * relays run network to a standalone egress proxy. The service never logs it and never lets it into the sandbox:
 * it sends it to the proxy first on each connection it relays ({@link egressTokenPreamble}), outside the sandbox.
 */
export const codeInterpreterEgressTokenHeader = 'x-toolbus-egress-token';

/**
 * The line a relay writes first on each connection to a standalone egress proxy, before the sandbox's own bytes:
 * `TOOLBUS-EGRESS-TOKEN <token>\r\n`. The proxy takes the connection's identity from the verified token.
 */
export const egressTokenPreamble = 'TOOLBUS-EGRESS-TOKEN ';

/** A stored file to place in the workspace before the run. */
export interface WorkspaceFileInput {
  /** Relative path inside /workspace. */
  readonly path: string;
  readonly file_id: string;
}

/** `POST /v1/execute` and `POST /v1/execute/stream`. */
export interface ExecuteRequest {
  readonly code: string;
  readonly stdin?: string;
  readonly timeout_ms?: number;
  readonly files?: readonly WorkspaceFileInput[];
  /**
   * Skill names (`^[a-z0-9]+(-[a-z0-9]+)*$`, at most 64) mounted read-only at `/workspace/managed/skills/<name>/`.
   * Needs service 1.1.0 (`codeInterpreterFieldVersions`); an unknown name is a 400 `skill_not_found`. The
   * client leaves an empty list out, so requests without skills still work on older servers.
   */
  readonly skills?: readonly string[];
}

/** A file the run created or changed, stored by the service under a new id. */
export interface ExecutionFile {
  readonly path: string;
  readonly file_id: string;
  readonly size?: number;
  readonly kind: 'created' | 'modified' | (string & {});
}

/** The outcome of one run. */
export interface ExecuteResponse {
  readonly stdout: string;
  readonly stderr: string;
  /** Null when the run was killed (timeout). */
  readonly exit_code: number | null;
  readonly timed_out: boolean;
  readonly duration_ms?: number;
  readonly files: readonly ExecutionFile[];
}

/** `POST /v1/files` answer. */
export interface UploadResponse {
  readonly file_id: string;
  readonly filename?: string;
  readonly size?: number;
}

/**
 * `POST /v1/sessions`. The session's workspace starts as a run's does: the same `files` placed in it and the same
 * `skills` mounted read-only, here for every command of the session (service 1.1.0+).
 */
export interface CreateSessionRequest extends Pick<ExecuteRequest, 'files' | 'skills'> {
  readonly ttl_seconds?: number;
}

/** `POST /v1/sessions` answer; `expires_at` in unix seconds. */
export interface CreateSessionResponse {
  readonly session_id: string;
  readonly expires_at: number;
}

/** `POST /v1/sessions/{id}/bash`. */
export interface SessionCommandRequest {
  readonly command: string;
  readonly timeout_ms?: number;
}

/** The outcome of one session command. */
export interface SessionCommandResponse {
  readonly stdout: string;
  readonly stderr: string;
  readonly exit_code: number | null;
  readonly timed_out: boolean;
  readonly duration_ms?: number;
}

/** Every 4xx/5xx body. */
export interface ErrorResponse {
  readonly error: { readonly code: string; readonly message: string };
}

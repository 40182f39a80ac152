import {
  type CreateSessionRequest,
  type CreateSessionResponse,
  type ExecuteRequest,
  type ExecuteResponse,
  type FetchFunction,
  type HealthResponse,
  omitUndefined,
  type SessionCommandRequest,
  type SessionCommandResponse,
  type UploadResponse,
} from '@toolbus/spec';
import type {
  CodeInterpreter,
  CodeInterpreterCallOptions,
  ExecuteStreamEvent,
  SessionCommandStreamEvent,
  UploadFileOptions,
} from './code-interpreter.ts';
import { CodeInterpreterError } from './code-interpreter-error.ts';
import {
  type CodeInterpreterFeature,
  type CodeInterpreterMethod,
  requiredServerVersion,
} from './code-interpreter-methods.ts';
import { CodeInterpreterVersionError } from './code-interpreter-version-error.ts';
import {
  type InterpreterRequest,
  readInterpreterJson,
  sendInterpreterRequest,
} from './interpreter-request.ts';
import { readRunEvents, replayRunResult } from './read-run-events.ts';
import { compareSemanticVersions, parseSemanticVersion } from './semantic-version.ts';

/** Options for {@link CodeInterpreterClient}. */
export interface CodeInterpreterClientOptions {
  /** e.g. http://127.0.0.1:8000 */
  readonly baseUrl: string;
  /** Defaults to the global fetch. */
  readonly fetch?: FetchFunction;
  /** Timeout of requests other than runs (uploads, downloads, sessions). Default 30 s. */
  readonly requestTimeoutMs?: number;
  /** Timeout of `/health`. Default 5 s. */
  readonly healthTimeoutMs?: number;
}

/** Older servers refuse unknown fields: an empty `skills` list says nothing, so it is not sent. */
function withoutEmptySkills<T extends { readonly skills?: readonly string[] }>(request: T): T {
  if (request.skills === undefined || request.skills.length > 0) return request;
  const { skills: _skills, ...rest } = request;
  return rest as T;
}

// A run's HTTP request may take as long as the run plus this margin (start-up, file collection, queueing).
const runMarginMs = 10_000;
const defaultRunTimeoutMs = 60_000;

/**
 * Client of the code-execution service. The server's version is read once from `/health` and cached; methods that
 * need a newer server fail fast with {@link CodeInterpreterVersionError} instead of sending a request that would
 * 404. `executeStream` falls back to the batch endpoint on servers without streaming.
 */
export class CodeInterpreterClient implements CodeInterpreter {
  readonly baseUrl: string;
  readonly #fetch: FetchFunction;
  readonly #requestTimeoutMs: number;
  readonly #healthTimeoutMs: number;
  #version: Promise<string> | undefined;
  #streamingMissing = false;
  #sessionStreamingMissing = false;

  constructor(options: CodeInterpreterClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.#healthTimeoutMs = options.healthTimeoutMs ?? 5000;
  }

  /** Asks `/health` now (not cached) and records the version it reports. */
  async health(options: CodeInterpreterCallOptions = {}): Promise<HealthResponse> {
    const response = await this.#send({ path: '/health', timeoutMs: this.#healthTimeoutMs, ...options });
    const health = await readInterpreterJson<HealthResponse>(response);
    if (typeof health !== 'object' || health === null || typeof health.status !== 'string') {
      throw new CodeInterpreterError({
        code: 'code_interpreter_protocol',
        message: '/health did not answer {status}',
      });
    }
    this.#version = Promise.resolve(health.version ?? '0.0.0');
    return health;
  }

  /** True when the service answers `/health` with status ok or degraded. Never throws. */
  async isAvailable(options: CodeInterpreterCallOptions = {}): Promise<boolean> {
    try {
      const { status } = await this.health(options);
      return status === 'ok' || status === 'degraded';
    } catch {
      return false;
    }
  }

  /** The server's version (from the first `/health` answer, then cached); '0.0.0' when it reports none. */
  serverVersion(options: CodeInterpreterCallOptions = {}): Promise<string> {
    if (!this.#version) {
      const pending = this.health(options).then((health) => health.version ?? '0.0.0');
      // A failed read is not cached: the next call asks again.
      pending.catch(() => {
        if (this.#version === pending) this.#version = undefined;
      });
      this.#version = pending;
    }
    return this.#version;
  }

  /**
   * Whether the server is new enough for every one of `features` (methods, or optional fields such as `skills`).
   * Reads the cached version; sends nothing else.
   */
  async supports(...features: CodeInterpreterFeature[]): Promise<boolean> {
    const server = parseSemanticVersion(await this.serverVersion());
    return features.every(
      (feature) => compareSemanticVersions(server, parseSemanticVersion(requiredServerVersion(feature))) >= 0,
    );
  }

  /** Runs code and waits for the result. */
  async execute(request: ExecuteRequest, options: CodeInterpreterCallOptions = {}): Promise<ExecuteResponse> {
    const timeoutMs = (request.timeout_ms ?? defaultRunTimeoutMs) + runMarginMs;
    return this.#postWithSkills<ExecuteResponse>('execute', '/v1/execute', request, timeoutMs, options);
  }

  /**
   * Runs code and yields its output as it happens, then the result. On a server older than the streaming endpoint
   * (by version, or by a 404 for the route) it runs the batch endpoint and replays its output as events.
   * Request failures throw before the first event; a failure the server reports mid-stream, or a stream that ends
   * without a result, arrives as an `error` event.
   */
  async *executeStream(
    request: ExecuteRequest,
    options: CodeInterpreterCallOptions = {},
  ): AsyncGenerator<ExecuteStreamEvent> {
    await this.#requireSkillsSupport('executeStream', request, options);
    if (this.#streamingMissing || !(await this.supports('executeStream'))) {
      yield* this.#replayBatch(request, options);
      return;
    }
    let response: Response;
    try {
      response = await this.#send({
        path: '/v1/execute/stream',
        method: 'POST',
        json: withoutEmptySkills(request),
        timeoutMs: (request.timeout_ms ?? defaultRunTimeoutMs) + runMarginMs,
        ...options,
      });
    } catch (error) {
      if (
        CodeInterpreterError.isInstance(error) &&
        error.status === 404 &&
        error.serviceCode !== 'file_not_found'
      ) {
        this.#streamingMissing = true;
        yield* this.#replayBatch(request, options);
        return;
      }
      throw error;
    }
    yield* readRunEvents<ExecuteResponse>(response, options);
  }

  /** Stores a file on the service (raw bytes; the name travels in the `filename` query parameter). */
  async uploadFile(options: UploadFileOptions): Promise<UploadResponse> {
    await this.#requireVersion('uploadFile', options);
    const body =
      typeof options.content === 'string'
        ? new TextEncoder().encode(options.content)
        : (options.content as BodyInit);
    const response = await this.#send({
      path: `/v1/files?filename=${encodeURIComponent(options.filename)}`,
      method: 'POST',
      body: body as BodyInit,
      headers: { 'content-type': 'application/octet-stream' },
      timeoutMs: this.#requestTimeoutMs,
      ...omitUndefined({ signal: options.signal, userId: options.userId }),
    });
    return readInterpreterJson<UploadResponse>(response);
  }

  /** A stored file's bytes. */
  async downloadFile(fileId: string, options: CodeInterpreterCallOptions = {}): Promise<Uint8Array> {
    await this.#requireVersion('downloadFile', options);
    const response = await this.#send({
      path: `/v1/files/${encodeURIComponent(fileId)}`,
      timeoutMs: this.#requestTimeoutMs,
      ...options,
    });
    return new Uint8Array(await response.arrayBuffer());
  }

  deleteFile(fileId: string, options: CodeInterpreterCallOptions = {}): Promise<void> {
    return this.#delete('deleteFile', `/v1/files/${encodeURIComponent(fileId)}`, options);
  }

  /** A workspace that keeps its files between commands until deleted or its TTL passes. */
  async createSession(
    request: CreateSessionRequest = {},
    options: CodeInterpreterCallOptions = {},
  ): Promise<CreateSessionResponse> {
    return this.#postWithSkills<CreateSessionResponse>(
      'createSession',
      '/v1/sessions',
      request,
      this.#requestTimeoutMs,
      options,
    );
  }

  /** Runs `bash -c command` in a session's workspace. */
  async runSessionCommand(
    sessionId: string,
    request: SessionCommandRequest,
    options: CodeInterpreterCallOptions = {},
  ): Promise<SessionCommandResponse> {
    await this.#requireVersion('runSessionCommand', options);
    const response = await this.#send({
      path: `/v1/sessions/${encodeURIComponent(sessionId)}/bash`,
      method: 'POST',
      json: request,
      timeoutMs: (request.timeout_ms ?? defaultRunTimeoutMs) + runMarginMs,
      ...options,
    });
    return readInterpreterJson<SessionCommandResponse>(response);
  }

  /**
   * Runs `bash -c command` in a session and yields its output as it happens, then the result. On a server without
   * the session's streaming route (a 404 for the route, not for the session) it runs the batch endpoint and
   * replays its output as events. Failures mid-stream arrive as an `error` event, like `executeStream`.
   */
  async *runSessionCommandStream(
    sessionId: string,
    request: SessionCommandRequest,
    options: CodeInterpreterCallOptions = {},
  ): AsyncGenerator<SessionCommandStreamEvent> {
    await this.#requireVersion('runSessionCommandStream', options);
    if (!this.#sessionStreamingMissing) {
      let response: Response | undefined;
      try {
        response = await this.#send({
          path: `/v1/sessions/${encodeURIComponent(sessionId)}/bash/stream`,
          method: 'POST',
          json: request,
          timeoutMs: (request.timeout_ms ?? defaultRunTimeoutMs) + runMarginMs,
          ...options,
        });
      } catch (error) {
        const routeMissing =
          CodeInterpreterError.isInstance(error) &&
          error.status === 404 &&
          error.serviceCode !== 'session_not_found';
        if (!routeMissing) throw error;
        this.#sessionStreamingMissing = true;
      }
      if (response) {
        yield* readRunEvents<SessionCommandResponse>(response, options);
        return;
      }
    }
    yield* replayRunResult(await this.runSessionCommand(sessionId, request, options));
  }

  deleteSession(sessionId: string, options: CodeInterpreterCallOptions = {}): Promise<void> {
    return this.#delete('deleteSession', `/v1/sessions/${encodeURIComponent(sessionId)}`, options);
  }

  /**
   * A POST whose request may name skills (a run, a session): the method's server version is checked, and the
   * skills field's too when skills are named; an empty list is left out, so such a request works on any server.
   */
  async #postWithSkills<T>(
    method: CodeInterpreterMethod,
    path: string,
    request: { readonly skills?: readonly string[] },
    timeoutMs: number,
    options: CodeInterpreterCallOptions,
  ): Promise<T> {
    await this.#requireVersion(method, options);
    await this.#requireSkillsSupport(method, request, options);
    const response = await this.#send({
      path,
      method: 'POST',
      json: withoutEmptySkills(request),
      timeoutMs,
      ...options,
    });
    return readInterpreterJson<T>(response);
  }

  /** A DELETE of one resource; its answer's body says nothing more, so it is discarded. */
  async #delete(
    method: CodeInterpreterMethod,
    path: string,
    options: CodeInterpreterCallOptions,
  ): Promise<void> {
    await this.#requireVersion(method, options);
    const response = await this.#send({
      path,
      method: 'DELETE',
      timeoutMs: this.#requestTimeoutMs,
      ...options,
    });
    await response.body?.cancel();
  }

  async #requireVersion(
    method: CodeInterpreterMethod,
    options: CodeInterpreterCallOptions,
    feature: CodeInterpreterFeature = method,
  ): Promise<void> {
    const required = requiredServerVersion(feature);
    if (required === '0.0.0') return;
    const serverVersion = await this.serverVersion(options);
    if (compareSemanticVersions(parseSemanticVersion(serverVersion), parseSemanticVersion(required)) < 0) {
      throw new CodeInterpreterVersionError({
        method: feature === method ? method : `${method} with ${feature}`,
        serverVersion,
        requiredVersion: required,
      });
    }
  }

  /** A request naming skills needs a server that knows the field; one without skills works on any version. */
  async #requireSkillsSupport(
    method: CodeInterpreterMethod,
    request: { readonly skills?: readonly string[] },
    options: CodeInterpreterCallOptions,
  ): Promise<void> {
    if (request.skills !== undefined && request.skills.length > 0) {
      await this.#requireVersion(method, options, 'skills');
    }
  }

  async *#replayBatch(
    request: ExecuteRequest,
    options: CodeInterpreterCallOptions,
  ): AsyncGenerator<ExecuteStreamEvent> {
    yield* replayRunResult(await this.execute(request, options));
  }

  #send(request: Omit<InterpreterRequest, 'baseUrl' | 'fetch'>): Promise<Response> {
    return sendInterpreterRequest({ ...request, baseUrl: this.baseUrl, fetch: this.#fetch });
  }
}

import {
  type CreateSessionRequest,
  type CreateSessionResponse,
  codeInterpreterEgressTagHeader,
  codeInterpreterEgressTokenHeader,
  codeInterpreterUserHeader,
  type ErrorResponse,
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
  RunStreamEvent,
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
import { parseServerSentEvents } from './parse-server-sent-events.ts';
import { compareSemanticVersions, parseSemanticVersion } from './semantic-version.ts';
import { SERVICE_STOPPED_MESSAGE } from './service-stopped.ts';

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
    const health = await this.#readJson<HealthResponse>(response);
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
    await this.#requireVersion('execute', options);
    await this.#requireSkillsSupport('execute', request, options);
    const response = await this.#send({
      path: '/v1/execute',
      method: 'POST',
      json: withoutEmptySkills(request),
      timeoutMs: (request.timeout_ms ?? defaultRunTimeoutMs) + runMarginMs,
      ...options,
    });
    return this.#readJson<ExecuteResponse>(response);
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
    yield* this.#readRunEvents<ExecuteResponse>(response, options);
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
    return this.#readJson<UploadResponse>(response);
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

  async deleteFile(fileId: string, options: CodeInterpreterCallOptions = {}): Promise<void> {
    await this.#requireVersion('deleteFile', options);
    const response = await this.#send({
      path: `/v1/files/${encodeURIComponent(fileId)}`,
      method: 'DELETE',
      timeoutMs: this.#requestTimeoutMs,
      ...options,
    });
    await response.body?.cancel();
  }

  /** A workspace that keeps its files between commands until deleted or its TTL passes. */
  async createSession(
    request: CreateSessionRequest = {},
    options: CodeInterpreterCallOptions = {},
  ): Promise<CreateSessionResponse> {
    await this.#requireVersion('createSession', options);
    await this.#requireSkillsSupport('createSession', request, options);
    const response = await this.#send({
      path: '/v1/sessions',
      method: 'POST',
      json: withoutEmptySkills(request),
      timeoutMs: this.#requestTimeoutMs,
      ...options,
    });
    return this.#readJson<CreateSessionResponse>(response);
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
    return this.#readJson<SessionCommandResponse>(response);
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
        yield* this.#readRunEvents<SessionCommandResponse>(response, options);
        return;
      }
    }
    const result = await this.runSessionCommand(sessionId, request, options);
    if (result.stdout) yield { type: 'output', stream: 'stdout', data: result.stdout };
    if (result.stderr) yield { type: 'output', stream: 'stderr', data: result.stderr };
    yield { type: 'result', result };
  }

  /** The server-sent events of a streamed run: output, then one result or error (a broken stream is an error). */
  async *#readRunEvents<Result>(
    response: Response,
    options: CodeInterpreterCallOptions,
  ): AsyncGenerator<RunStreamEvent<Result>> {
    if (!response.body)
      throw new CodeInterpreterError({ code: 'code_interpreter_protocol', message: 'empty stream' });
    let finished = false;
    try {
      for await (const event of parseServerSentEvents(response.body)) {
        const data = this.#parseEventData(event.data);
        if (event.event === 'output' && data && (data.stream === 'stdout' || data.stream === 'stderr')) {
          yield { type: 'output', stream: data.stream, data: String(data.data ?? '') };
        } else if (event.event === 'result' && data) {
          finished = true;
          yield { type: 'result', result: data as unknown as Result };
          return;
        } else if (event.event === 'error') {
          finished = true;
          yield { type: 'error', message: String(data?.message ?? 'the execution failed') };
          return;
        }
      }
    } catch (error) {
      if (options.signal?.aborted) throw error;
      finished = true;
      // The cause (undici's "terminated", a reset) says nothing the model or the person could act on.
      yield { type: 'error', message: SERVICE_STOPPED_MESSAGE, serviceStopped: true };
    } finally {
      if (!finished) await response.body.cancel().catch(() => {});
    }
    if (!finished) yield { type: 'error', message: SERVICE_STOPPED_MESSAGE, serviceStopped: true };
  }

  async deleteSession(sessionId: string, options: CodeInterpreterCallOptions = {}): Promise<void> {
    await this.#requireVersion('deleteSession', options);
    const response = await this.#send({
      path: `/v1/sessions/${encodeURIComponent(sessionId)}`,
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
    const result = await this.execute(request, options);
    if (result.stdout) yield { type: 'output', stream: 'stdout', data: result.stdout };
    if (result.stderr) yield { type: 'output', stream: 'stderr', data: result.stderr };
    yield { type: 'result', result };
  }

  #parseEventData(data: string): Record<string, unknown> | undefined {
    try {
      const parsed: unknown = JSON.parse(data);
      return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }

  async #send(options: {
    path: string;
    method?: string;
    json?: unknown;
    body?: BodyInit;
    headers?: Record<string, string>;
    timeoutMs: number;
    signal?: AbortSignal;
    userId?: string;
    egressTag?: string;
    egressToken?: string;
  }): Promise<Response> {
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const method = options.method ?? 'GET';
    const user = omitUndefined({
      [codeInterpreterUserHeader]: options.userId,
      [codeInterpreterEgressTagHeader]: options.egressTag,
      [codeInterpreterEgressTokenHeader]: options.egressToken,
    });
    let response: Response;
    try {
      response = await this.#fetch(this.baseUrl + options.path, {
        method,
        signal,
        ...(options.json === undefined
          ? {
              ...omitUndefined({ body: options.body }),
              headers: { ...options.headers, ...user },
            }
          : { body: JSON.stringify(options.json), headers: { 'content-type': 'application/json', ...user } }),
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const reason = timeout.aborted
        ? `no answer within ${options.timeoutMs} ms`
        : 'the service is unreachable';
      throw new CodeInterpreterError({
        code: 'code_interpreter_unreachable',
        message: `${method} ${options.path.split('?')[0]}: ${reason}`,
        cause: error,
      });
    }
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      let serviceCode: string | undefined;
      let detail = text.slice(0, 500);
      try {
        const parsed = JSON.parse(text) as Partial<ErrorResponse> & { detail?: unknown };
        if (parsed.error) {
          serviceCode = parsed.error.code;
          detail = parsed.error.message;
        } else if (parsed.detail !== undefined) {
          detail = typeof parsed.detail === 'string' ? parsed.detail : JSON.stringify(parsed.detail);
        }
      } catch {}
      throw new CodeInterpreterError({
        code: 'code_interpreter_http',
        message: `${method} ${options.path.split('?')[0]} answered ${response.status}: ${detail}`,
        status: response.status,
        ...omitUndefined({ serviceCode }),
      });
    }
    return response;
  }

  async #readJson<T>(response: Response): Promise<T> {
    try {
      return (await response.json()) as T;
    } catch (error) {
      throw new CodeInterpreterError({
        code: 'code_interpreter_protocol',
        message: `${response.url} did not answer JSON`,
        cause: error,
      });
    }
  }
}

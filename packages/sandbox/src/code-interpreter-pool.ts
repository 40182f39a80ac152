import type {
  CreateSessionRequest,
  CreateSessionResponse,
  ExecuteRequest,
  ExecuteResponse,
  FetchFunction,
  HealthResponse,
  SessionCommandRequest,
  SessionCommandResponse,
  UploadResponse,
  WorkspaceFileInput,
} from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import type {
  CodeInterpreter,
  CodeInterpreterCallOptions,
  ExecuteStreamEvent,
  SessionCommandStreamEvent,
  UploadFileOptions,
} from './code-interpreter.ts';
import { CodeInterpreterClient } from './code-interpreter-client.ts';
import { type CodeInterpreterFeature, requiredServerVersion } from './code-interpreter-methods.ts';
import { type Placement, type PoolMember, PoolPlacement } from './pool-placement.ts';
import { serverLostError } from './pool-server-errors.ts';
import { PooledIds } from './pooled-ids.ts';
import { compareSemanticVersions, parseSemanticVersion } from './semantic-version.ts';

/** Options for {@link CodeInterpreterPool}. */
export interface CodeInterpreterPoolOptions {
  /** One base URL per interpreter service, e.g. ['http://10.0.0.5:8000', 'http://10.0.0.6:8000']. */
  readonly baseUrls: readonly string[];
  /** Defaults to the global fetch. */
  readonly fetch?: FetchFunction;
  /** How often every server's `/health` is asked in the background. Default 5000 ms; 0 turns it off. */
  readonly healthIntervalMs?: number;
  /** Passed to each server's client. */
  readonly requestTimeoutMs?: number;
  readonly healthTimeoutMs?: number;
}

/** One server of the pool, as {@link CodeInterpreterPool.servers} reports it. */
export interface CodeInterpreterPoolServer {
  readonly baseUrl: string;
  /** False after a failed health check or a connection failure, until a health check succeeds again. */
  readonly healthy: boolean;
  /** Requests sent to it and not answered yet (a stream counts until it ends). */
  readonly inFlight: number;
}

/**
 * Several interpreter services behind one {@link CodeInterpreter}, for deployments that outgrow one machine.
 *
 * - Placement: a request goes to the healthy server with the fewest requests in flight (ties rotate). A request
 *   that names files goes to the server that holds most of them; files it lacks are copied there first (download,
 *   upload), and the copy is remembered.
 * - Stickiness: file and session ids the pool returns carry their server (`s<index>~<id>`), so downloads,
 *   deletions and session commands reach the server that has them. They are opaque: pass back what you got.
 * - Health: each server's `/health` is asked every `healthIntervalMs`; a failed check or a connection failure marks
 *   it down (no new work) until a check succeeds, so a dead server is taken out and a restarted one comes back.
 *   When every server is down, requests are tried anyway (one may be back before its next check); when they fail
 *   too, the error says that no service answers, in words the model can act on.
 * - Lost servers: a session or file whose server stops answering is reported as lost (`serviceCode`
 *   `session_lost` / `file_lost`), never silently re-created elsewhere: its workspace existed on that server only.
 * - Retry rule: a request is retried on another server (each server tried at most once) only when nothing can
 *   have run: the connection failed (refused, reset, closed before an answer — the service kills a run whose
 *   connection closes, and a run's workspace is private and thrown away, so a second run is safe), or the server
 *   answered 503 `queue_full` or `sandbox_unavailable` (refused before starting). Retried: execute, executeStream
 *   (while none of its output has reached the caller), uploadFile, createSession (a session a lost answer created
 *   expires at its TTL). A stream that breaks after some output ends with an error event saying the service
 *   stopped and that running the code again will probably work; its server is marked down at once.
 *   Never retried: timeouts (the code may still be running; a second run would likely time out too), the caller's
 *   abort, other HTTP errors, and everything tied to one server: session commands, downloads, deletions.
 */
export class CodeInterpreterPool implements CodeInterpreter {
  readonly #members: PoolMember[];
  readonly #placement: PoolPlacement;
  readonly #timer: NodeJS.Timeout | undefined;
  #healthRound: Promise<readonly CodeInterpreterPoolServer[]> | undefined;

  constructor(options: CodeInterpreterPoolOptions) {
    if (options.baseUrls.length === 0) throw new TypeError('CodeInterpreterPool needs at least one base URL');
    this.#members = options.baseUrls.map((baseUrl, index) => ({
      index,
      client: new CodeInterpreterClient({
        baseUrl,
        ...omitUndefined({
          fetch: options.fetch,
          requestTimeoutMs: options.requestTimeoutMs,
          healthTimeoutMs: options.healthTimeoutMs,
        }),
      }),
      healthy: true,
      inFlight: 0,
    }));
    this.#placement = new PoolPlacement(this.#members, new PooledIds(this.#members.length));
    const interval = options.healthIntervalMs ?? 5000;
    if (interval > 0) {
      this.#timer = setInterval(() => void this.checkHealth(), interval);
      this.#timer.unref();
    }
  }

  /** Each server's state now. */
  servers(): CodeInterpreterPoolServer[] {
    return this.#members.map((member) => ({
      baseUrl: member.client.baseUrl,
      healthy: member.healthy,
      inFlight: member.inFlight,
    }));
  }

  /** Asks every server's `/health` now and marks each up (ok or degraded) or down. */
  checkHealth(): Promise<readonly CodeInterpreterPoolServer[]> {
    this.#healthRound ??= Promise.all(
      this.#members.map(async (member) => {
        try {
          const { status } = await member.client.health();
          member.healthy = status === 'ok' || status === 'degraded';
        } catch {
          member.healthy = false;
        }
      }),
    ).then(
      () => this.servers(),
      () => this.servers(),
    );
    const round = this.#healthRound;
    void round.finally(() => {
      if (this.#healthRound === round) this.#healthRound = undefined;
    });
    return round;
  }

  /** Stops the background health checks. Requests in flight finish. */
  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
  }

  /** Checks every server now: ok when all are up, degraded when some are, error when none is. */
  async health(): Promise<HealthResponse> {
    const servers = await this.checkHealth();
    const up = servers.filter((server) => server.healthy).length;
    const status = up === servers.length ? 'ok' : up > 0 ? 'degraded' : 'error';
    return {
      status,
      version: up > 0 ? await this.serverVersion() : '0.0.0',
      ...(status === 'ok' ? {} : { reason: `${servers.length - up} of ${servers.length} servers are down` }),
    };
  }

  /** True when at least one server answers its health check with ok or degraded. Never throws. */
  async isAvailable(): Promise<boolean> {
    return (await this.checkHealth()).some((server) => server.healthy);
  }

  /** The oldest version among the servers that answer: any of them may get the next request. */
  async serverVersion(options: CodeInterpreterCallOptions = {}): Promise<string> {
    const answers = await Promise.allSettled(
      this.#members.map((member) => member.client.serverVersion(options)),
    );
    const versions = answers.flatMap((answer) => (answer.status === 'fulfilled' ? [answer.value] : []));
    if (versions.length === 0) {
      const first = answers[0];
      throw first?.status === 'rejected' ? first.reason : new Error('no server answered');
    }
    return versions.reduce((oldest, version) =>
      compareSemanticVersions(parseSemanticVersion(version), parseSemanticVersion(oldest)) < 0
        ? version
        : oldest,
    );
  }

  /** Whether the oldest reachable server supports every one of `features`. */
  async supports(...features: CodeInterpreterFeature[]): Promise<boolean> {
    const oldest = parseSemanticVersion(await this.serverVersion());
    return features.every(
      (feature) => compareSemanticVersions(oldest, parseSemanticVersion(requiredServerVersion(feature))) >= 0,
    );
  }

  async execute(request: ExecuteRequest, options: CodeInterpreterCallOptions = {}): Promise<ExecuteResponse> {
    return this.#withRetry(request.files ?? [], options, async (placement) =>
      this.#placement.poolResult(
        placement.member,
        await placement.member.client.execute(withFiles(request, placement.files), options),
      ),
    );
  }

  async *executeStream(
    request: ExecuteRequest,
    options: CodeInterpreterCallOptions = {},
  ): AsyncGenerator<ExecuteStreamEvent> {
    const failed = new Set<number>();
    for (;;) {
      const placement = await this.#placement.place(request.files ?? [], failed, options);
      const iterator = placement.member.client
        .executeStream(withFiles(request, placement.files), options)
        [Symbol.asyncIterator]();
      try {
        let next: IteratorResult<ExecuteStreamEvent>;
        try {
          next = await iterator.next();
        } catch (error) {
          if (
            this.#placement.shouldRetry(placement.member, error) &&
            failed.size + 1 < this.#members.length
          ) {
            failed.add(placement.member.index);
            continue;
          }
          throw this.#placement.explained(error);
        }
        let shown = false;
        while (next.done !== true) {
          const event = next.value;
          if (event.type === 'error' && event.serviceStopped === true) {
            // Taken out at once, not at the next health check: the runs that follow must not land there.
            placement.member.healthy = false;
            // Nothing reached the caller: the run died with its sandbox, so running it elsewhere is as safe as
            // the retry of a failed connection (see the class comment).
            if (!shown && failed.size + 1 < this.#members.length) break;
          }
          shown = true;
          yield event.type === 'result'
            ? { type: 'result', result: this.#placement.poolResult(placement.member, event.result) }
            : event;
          if (event.type !== 'output') return;
          next = await iterator.next();
        }
        if (next.done === true) return;
        failed.add(placement.member.index);
      } finally {
        await iterator.return?.(undefined);
        this.#placement.release(placement.member);
      }
    }
  }

  async uploadFile(options: UploadFileOptions): Promise<UploadResponse> {
    const call = omitUndefined({ signal: options.signal });
    return this.#withRetry([], call, async ({ member }) => {
      const uploaded = await member.client.uploadFile(options);
      return { ...uploaded, file_id: this.#placement.ids.issue(member.index, uploaded.file_id) };
    });
  }

  async downloadFile(fileId: string, options: CodeInterpreterCallOptions = {}): Promise<Uint8Array> {
    return this.#placement.onHolderOf(fileId, 'file', (member, serverId) =>
      member.client.downloadFile(serverId, options),
    );
  }

  /** Deletes the file on its server and any copies the pool made of it on others. */
  async deleteFile(fileId: string, options: CodeInterpreterCallOptions = {}): Promise<void> {
    const copies = this.#placement.ids.forgetCopies(fileId);
    await Promise.all(
      [...copies].map(([index, serverId]) =>
        this.#members[index]?.client.deleteFile(serverId, options).catch(() => {}),
      ),
    );
    await this.#placement.onHolderOf(fileId, 'file', (member, serverId) =>
      member.client.deleteFile(serverId, options),
    );
  }

  async createSession(
    request: CreateSessionRequest = {},
    options: CodeInterpreterCallOptions = {},
  ): Promise<CreateSessionResponse> {
    return this.#withRetry(request.files ?? [], options, async ({ member, files }) => {
      const created = await member.client.createSession(withFiles(request, files), options);
      return { ...created, session_id: this.#placement.ids.issue(member.index, created.session_id) };
    });
  }

  async runSessionCommand(
    sessionId: string,
    request: SessionCommandRequest,
    options: CodeInterpreterCallOptions = {},
  ): Promise<SessionCommandResponse> {
    return this.#placement.onHolderOf(sessionId, 'session', (member, serverId) =>
      member.client.runSessionCommand(serverId, request, options),
    );
  }

  /** A session command, streamed from the server that holds the session (never retried elsewhere). */
  async *runSessionCommandStream(
    sessionId: string,
    request: SessionCommandRequest,
    options: CodeInterpreterCallOptions = {},
  ): AsyncGenerator<SessionCommandStreamEvent> {
    const member = this.#placement.memberOf(sessionId, 'session');
    const { serverId } = this.#placement.ids.parse(sessionId, 'session');
    member.inFlight += 1;
    let started = false;
    try {
      for await (const event of member.client.runSessionCommandStream(serverId, request, options)) {
        started = true;
        if (event.type === 'error' && event.serviceStopped === true) {
          // The session's workspace died with its service: say so, as a later command would hear.
          member.healthy = false;
          const lost = serverLostError({ kind: 'session', pooledId: sessionId, cause: undefined });
          yield { ...event, message: lost.message };
          return;
        }
        yield event;
      }
    } catch (error) {
      // Before the first event nothing of this command ran; after it, the stream's own error stands.
      throw started ? error : this.#placement.lostIfDown(member, 'session', sessionId, error);
    } finally {
      this.#placement.release(member);
    }
  }

  async deleteSession(sessionId: string, options: CodeInterpreterCallOptions = {}): Promise<void> {
    await this.#placement.onHolderOf(sessionId, 'session', (member, serverId) =>
      member.client.deleteSession(serverId, options),
    );
  }

  async #withRetry<T>(
    files: readonly WorkspaceFileInput[],
    options: CodeInterpreterCallOptions,
    run: (placement: Placement) => Promise<T>,
  ): Promise<T> {
    const failed = new Set<number>();
    for (;;) {
      const placement = await this.#placement.place(files, failed, options);
      try {
        return await run(placement);
      } catch (error) {
        if (this.#placement.shouldRetry(placement.member, error) && failed.size + 1 < this.#members.length) {
          failed.add(placement.member.index);
          continue;
        }
        throw this.#placement.explained(error);
      } finally {
        this.#placement.release(placement.member);
      }
    }
  }
}

function withFiles<T extends { readonly files?: readonly WorkspaceFileInput[] }>(
  request: T,
  files: WorkspaceFileInput[],
): T {
  return request.files === undefined ? request : { ...request, files };
}

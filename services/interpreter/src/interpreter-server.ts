import { randomInt } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExecutionQueue } from './execution-queue.ts';
import { FileStore } from './file-store.ts';
import { HttpError } from './http-error.ts';
import { readJsonObject, sendError, sendJson } from './http-io.ts';
import { type InterpreterLimits, resolveInterpreterLimits } from './interpreter-limits.ts';
import { INTERPRETER_VERSION } from './interpreter-version.ts';
import { findExecutable, type IsolationReport, probeIsolation } from './probe-isolation.ts';
import {
  isUuid,
  parseBashRequest,
  parseCreateSessionRequest,
  parseExecuteRequest,
  type WorkspaceFileReference,
} from './request-validation.ts';
import type { OutputStreamName } from './run-in-sandbox.ts';
import { SandboxExecutor } from './sandbox-executor.ts';
import { SessionRegistry } from './session-registry.ts';
import { type SkillMount, SkillsDirectory, unknownSkill } from './skills-directory.ts';
import { UidAllocator } from './uid-allocator.ts';
import type { StagedFile } from './workspace-files.ts';

/** Options for {@link startInterpreterServer}. */
export interface InterpreterServerOptions {
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  /** Defaults to 127.0.0.1: the API has no authentication, so expose it only to the processes that use it. */
  readonly host?: string;
  /** Where workspaces and stored files live. Defaults to a fresh temporary directory, removed at close. */
  readonly workRoot?: string;
  readonly limits?: Partial<InterpreterLimits>;
  /** Defaults to Debian's CPython, /usr/bin/python3 (which has numpy, pandas and matplotlib from Debian). */
  readonly pythonPath?: string;
  /** Defaults to `bwrap` on PATH. */
  readonly bubblewrapPath?: string;
  /** Give sandboxes the host network. Off by default; /health reports it as degraded. */
  readonly allowNetwork?: boolean;
  /** Host uids for sandboxes when the service runs as root. Defaults to a random block of 4096 uids above one
   * million, so two services on one machine (tests run several) do not share uids and with them process limits. */
  readonly sandboxUids?: { readonly first: number; readonly count: number };
  /**
   * A host folder of materialised skills (one sub-folder per name, as `materializeSkills` of @toolbus/skills
   * writes them). Requests name the skills they want in `skills`; each is bound read-only at
   * `/workspace/managed/skills/<name>/`. Without it, any request naming a skill is refused.
   */
  readonly skillsRoot?: string;
  /** Receives start-up and error lines (never request contents). */
  readonly onLog?: (line: string) => void;
}

/** A running interpreter service. */
export interface InterpreterServer {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  readonly url: string;
  /** What the start-up probe found (also served on /health). */
  readonly isolation: IsolationReport;
  close(): Promise<void>;
}

/** One output file of a run, as the API returns it. */
interface ExecutionFile {
  path: string;
  file_id: string;
  size: number;
  kind: 'created' | 'modified';
}

const jsonBodyLimit = 4 * 1024 * 1024;

function randomUidBlock(): { first: number; count: number } {
  const count = 4096;
  // Blocks between 2^20 and 2^31: far above any real account, below the 32-bit overflow id space.
  return { first: 2 ** 20 + randomInt(0, (2 ** 31 - 2 ** 20) / count - 1) * count, count };
}

/** Makes a client-supplied filename safe for storage metadata and Content-Disposition. */
function sanitizeFilename(name: string | null): string {
  const cleaned = (name ?? '')
    .replace(/[\x00-\x1f/\\:*?"<>|]/g, '_')
    .replace(/^\.+|\.+$/g, '')
    .slice(0, 200);
  return cleaned || 'file';
}

/**
 * Starts the code-execution service (HTTP on loopback by default). It probes the sandbox first: when bubblewrap
 * cannot isolate on this machine, it still starts, `/health` says why, and executions are refused with 503.
 */
export async function startInterpreterServer(
  options: InterpreterServerOptions = {},
): Promise<InterpreterServer> {
  const log = options.onLog ?? (() => {});
  const limits = resolveInterpreterLimits(options.limits);
  const isRoot = process.getuid?.() === 0;
  // Checked before anything is created, so a wrong skills root leaves nothing behind.
  const skillsDirectory =
    options.skillsRoot === undefined
      ? undefined
      : await SkillsDirectory.open({ root: options.skillsRoot, sandboxesRunAsOtherUsers: isRoot });
  const ownsWorkRoot = options.workRoot === undefined;
  const workRoot = options.workRoot ?? (await mkdtemp(join(tmpdir(), 'toolbus-interpreter-')));
  const executor = new SandboxExecutor({
    workRoot,
    bubblewrapPath: options.bubblewrapPath ?? (await findExecutable('bwrap')) ?? '/usr/bin/bwrap',
    pythonPath: options.pythonPath ?? '/usr/bin/python3',
    limits,
    ...(isRoot ? { uids: new UidAllocator(options.sandboxUids ?? randomUidBlock()) } : {}),
    ...(options.allowNetwork === true ? { shareNetwork: true } : {}),
  });
  await executor.open();
  const files = new FileStore({
    directory: join(workRoot, 'files'),
    maxFileBytes: limits.maxFileBytes,
    ttlSeconds: limits.fileTtlSeconds,
  });
  await files.open();
  const sessions = new SessionRegistry({ executor, maxSessions: limits.maxSessions });
  const queue = new ExecutionQueue({ maxConcurrent: limits.maxConcurrent, maxQueued: limits.maxQueued });
  const isolation = await probeIsolation(executor);
  if (isolation.status === 'ok') log(`interpreter: sandbox ok (${isolation.bubblewrap ?? 'bwrap'})`);
  else log(`interpreter: sandbox ${isolation.status}: ${isolation.reason ?? ''}`);

  const requireSandbox = (): void => {
    if (!isolation.sandbox) {
      throw new HttpError({
        status: 503,
        code: 'sandbox_unavailable',
        message: `no sandbox on this machine: ${isolation.reason ?? 'unknown reason'}`,
      });
    }
  };

  const resolveInputs = (references: readonly WorkspaceFileReference[]): StagedFile[] =>
    references.map((reference) => {
      if (!files.get(reference.fileId)) {
        throw new HttpError({ status: 404, code: 'file_not_found', message: `no file ${reference.fileId}` });
      }
      return { path: reference.path, sourcePath: files.pathOf(reference.fileId) };
    });

  const resolveSkills = async (names: readonly string[]): Promise<SkillMount[]> => {
    if (skillsDirectory !== undefined) return skillsDirectory.resolve(names);
    const [first] = names;
    if (first !== undefined) throw unknownSkill(first);
    return [];
  };

  const execute = async (options: {
    body: Record<string, unknown>;
    onStart?: () => void;
    onOutput?: (stream: OutputStreamName, data: string) => void;
    signal: AbortSignal;
  }) => {
    const request = parseExecuteRequest(options.body, limits);
    const inputs = resolveInputs(request.files);
    const skills = await resolveSkills(request.skills);
    requireSandbox();
    return queue.run(async () => {
      options.onStart?.();
      const workspace = await executor.createWorkspace(inputs);
      try {
        const result = await executor.runPython({
          workspace,
          code: request.code,
          timeoutMs: request.timeoutMs,
          skills,
          signal: options.signal,
          ...(request.stdin === undefined ? {} : { stdin: request.stdin }),
          ...(options.onOutput === undefined ? {} : { onOutput: options.onOutput }),
        });
        const changed = await executor.changedFiles(workspace);
        const outputs: ExecutionFile[] = [];
        for (const file of changed) {
          const stored = await files.putCopy({
            filename: sanitizeFilename(file.path.split('/').at(-1) ?? null),
            sourcePath: file.absolutePath,
          });
          outputs.push({ path: file.path, file_id: stored.fileId, size: stored.size, kind: file.kind });
        }
        return {
          stdout: result.stdout,
          stderr: result.stderr,
          exit_code: result.exitCode,
          timed_out: result.timedOut,
          duration_ms: result.durationMs,
          files: outputs,
        };
      } finally {
        await executor.removeWorkspace(workspace);
      }
    });
  };

  const abortOnClose = (response: ServerResponse): AbortSignal => {
    const controller = new AbortController();
    response.on('close', () => {
      if (!response.writableFinished) controller.abort();
    });
    return controller.signal;
  };

  /**
   * Serves one run as server-sent events: `output` events while it runs, then one `result` (or `error`). Errors
   * before the run starts (validation, unknown ids, a full queue) stay ordinary HTTP errors.
   */
  const streamRun = async (
    response: ServerResponse,
    run: (hooks: {
      onStart: () => void;
      onOutput: (stream: OutputStreamName, data: string) => void;
    }) => Promise<unknown>,
  ): Promise<void> => {
    const send = (event: string, data: unknown): void => {
      if (!response.writableEnded) response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    try {
      const result = await run({
        onStart: () => {
          if (response.headersSent) return;
          response.writeHead(200, {
            'content-type': 'text/event-stream; charset=utf-8',
            'cache-control': 'no-store',
            'x-accel-buffering': 'no',
          });
          response.flushHeaders();
        },
        onOutput: (stream, data) => send('output', { stream, data }),
      });
      send('result', result);
      response.end();
    } catch (error) {
      if (!response.headersSent) throw error;
      log(`interpreter: stream failed: ${error instanceof Error ? error.message : String(error)}`);
      send('error', { message: error instanceof HttpError ? error.message : 'the execution failed' });
      response.end();
    }
  };

  const handleStream = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const body = await readJsonObject(request, jsonBodyLimit);
    await streamRun(response, (hooks) => execute({ body, signal: abortOnClose(response), ...hooks }));
  };

  const handleUpload = async (
    request: IncomingMessage,
    response: ServerResponse,
    url: URL,
  ): Promise<void> => {
    const declared = Number(request.headers['content-length'] ?? '0');
    if (declared > limits.maxFileBytes) {
      throw new HttpError({
        status: 413,
        code: 'file_too_large',
        message: `files are limited to ${limits.maxFileBytes} bytes`,
      });
    }
    const stored = await files.putStream({
      filename: sanitizeFilename(url.searchParams.get('filename')),
      body: request,
    });
    sendJson(response, 201, { file_id: stored.fileId, filename: stored.filename, size: stored.size });
  };

  const handleDownload = (response: ServerResponse, fileId: string): void => {
    const stored = files.get(fileId);
    if (!stored) throw new HttpError({ status: 404, code: 'file_not_found', message: `no file ${fileId}` });
    response.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-length': stored.size,
      'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(stored.filename)}`,
      'x-content-type-options': 'nosniff',
    });
    createReadStream(files.pathOf(fileId))
      .on('error', () => response.destroy())
      .pipe(response);
  };

  const route = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://interpreter');
    const method = request.method ?? 'GET';
    const segments = url.pathname.split('/').filter(Boolean);
    const idAt = (index: number): string => {
      const id = segments[index] ?? '';
      if (!isUuid(id))
        throw new HttpError({ status: 400, code: 'invalid_id', message: 'ids are lowercase uuids' });
      return id;
    };
    const allow = (...methods: string[]): void => {
      if (!methods.includes(method)) {
        response.setHeader('allow', methods.join(', '));
        throw new HttpError({
          status: 405,
          code: 'method_not_allowed',
          message: `use ${methods.join(' or ')}`,
        });
      }
    };
    const path = url.pathname;
    if (path === '/health') {
      allow('GET');
      const { status, reason, ...rest } = isolation;
      sendJson(response, 200, {
        status,
        version: INTERPRETER_VERSION,
        ...(reason === undefined ? {} : { reason }),
        isolation: rest,
        load: queue.load,
        skills: skillsDirectory !== undefined,
      });
    } else if (path === '/v1/execute') {
      allow('POST');
      const body = await readJsonObject(request, jsonBodyLimit);
      sendJson(response, 200, await execute({ body, signal: abortOnClose(response) }));
    } else if (path === '/v1/execute/stream') {
      allow('POST');
      await handleStream(request, response);
    } else if (path === '/v1/files') {
      allow('POST');
      await handleUpload(request, response, url);
    } else if (segments[0] === 'v1' && segments[1] === 'files' && segments.length === 3) {
      allow('GET', 'DELETE');
      const fileId = idAt(2);
      if (method === 'GET') handleDownload(response, fileId);
      else if (await files.delete(fileId)) response.writeHead(204).end();
      else throw new HttpError({ status: 404, code: 'file_not_found', message: `no file ${fileId}` });
    } else if (path === '/v1/sessions') {
      allow('POST');
      const parsed = parseCreateSessionRequest(await readJsonObject(request, jsonBodyLimit), limits);
      const inputs = resolveInputs(parsed.files);
      const skills = await resolveSkills(parsed.skills);
      requireSandbox();
      const session = await sessions.create({ ttlSeconds: parsed.ttlSeconds, files: inputs, skills });
      sendJson(response, 201, { session_id: session.id, expires_at: Math.floor(session.expiresAt / 1000) });
    } else if (segments[0] === 'v1' && segments[1] === 'sessions' && segments.length === 3) {
      allow('DELETE');
      if (await sessions.delete(idAt(2))) response.writeHead(204).end();
      else throw new HttpError({ status: 404, code: 'session_not_found', message: 'no such session' });
    } else if (
      segments[0] === 'v1' &&
      segments[1] === 'sessions' &&
      segments[3] === 'bash' &&
      segments.length === 4
    ) {
      allow('POST');
      const id = idAt(2);
      const parsed = parseBashRequest(await readJsonObject(request, jsonBodyLimit), limits);
      requireSandbox();
      const signal = abortOnClose(response);
      const result = await queue.run(() => sessions.run({ id, ...parsed, signal }));
      sendJson(response, 200, {
        stdout: result.stdout,
        stderr: result.stderr,
        exit_code: result.exitCode,
        timed_out: result.timedOut,
        duration_ms: result.durationMs,
      });
    } else if (
      segments[0] === 'v1' &&
      segments[1] === 'sessions' &&
      segments[3] === 'bash' &&
      segments[4] === 'stream' &&
      segments.length === 5
    ) {
      // The session command, streamed like /v1/execute/stream (output events, then one result).
      allow('POST');
      const id = idAt(2);
      const parsed = parseBashRequest(await readJsonObject(request, jsonBodyLimit), limits);
      requireSandbox();
      const signal = abortOnClose(response);
      await streamRun(response, async ({ onStart, onOutput }) => {
        const result = await queue.run(() => {
          // An unknown session throws here, before the headers: it stays a plain 404.
          const running = sessions.run({ id, ...parsed, signal, onOutput });
          onStart();
          return running;
        });
        return {
          stdout: result.stdout,
          stderr: result.stderr,
          exit_code: result.exitCode,
          timed_out: result.timedOut,
          duration_ms: result.durationMs,
        };
      });
    } else {
      throw new HttpError({ status: 404, code: 'not_found', message: `no route ${method} ${path}` });
    }
  };

  const server = createServer((request, response) => {
    route(request, response).catch((error: unknown) => {
      if (!(error instanceof HttpError)) {
        log(
          `interpreter: ${request.method} ${request.url?.split('?')[0]} failed: ${error instanceof Error ? error.stack : String(error)}`,
        );
      }
      // Drain what the client still sends, so it reads our answer instead of a reset connection.
      request.resume();
      sendError(response, error);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    isolation,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await sessions.close();
      files.close();
      if (ownsWorkRoot) await rm(workRoot, { recursive: true, force: true });
    },
  };
}

import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import { listenHttpServer } from '@toolbus/spec';
import { readAnthropicMessagesRequest } from './anthropic-messages-request.ts';
import { anthropicErrorBody, createAnthropicMessagesWire } from './anthropic-messages-wire.ts';
import type { ExpandedStep, ScriptedDataStep } from './expand-scripted-steps.ts';
import { expandScriptedSteps, scriptedFinishOf } from './expand-scripted-steps.ts';
import { readOpenAiChatRequest } from './openai-chat-request.ts';
import { createOpenAiChatWire, openAiErrorBody } from './openai-chat-wire.ts';
import type { ReadRequest } from './read-wire-request.ts';
import type {
  ScriptedRequest,
  ScriptedRequestOutcome,
  ScriptedStep,
  ScriptedTurn,
  ScriptedTurnMatcher,
} from './scripted-turn.ts';
import type { ScriptedWire } from './scripted-wire.ts';

/** Options for {@link startScriptedModelServer}. Give `turns`, or a `handler` that picks a turn per request. */
export interface ScriptedModelServerOptions {
  /** The script: a turn is a list of steps, or a {@link ScriptedTurn} with a matcher, assertions, repeat. */
  readonly turns?: readonly (ScriptedTurn | readonly ScriptedStep[])[];
  /** Computes the answer per request instead of a script. */
  readonly handler?: (
    request: ScriptedRequest,
  ) => ScriptedTurn | readonly ScriptedStep[] | Promise<ScriptedTurn | readonly ScriptedStep[]>;
  /** When set, requests must carry this key (`Authorization: Bearer` or `x-api-key`), else 401. */
  readonly apiKey?: string;
  /** Default 127.0.0.1 (loopback). */
  readonly host?: string;
  /** Default 0 (any free port). */
  readonly port?: number;
  /** Largest accepted request body. Default 16 MiB. */
  readonly maxBodyBytes?: number;
}

/** A running scripted model server. */
export interface ScriptedModelServer {
  /** `http://127.0.0.1:<port>`; the APIs live under `/v1` (`/v1/chat/completions`, `/v1/messages`). */
  readonly url: string;
  /** Every request received, in order, as recorded (bodies, header names, outcome). */
  readonly requests: readonly ScriptedRequest[];
  /** Why requests were refused: validation failures, failed assertions, no turn left. */
  readonly failures: readonly string[];
  /** Resolves with a request's final outcome (completed, client-closed, dropped, http-error, rejected). */
  settled(request: ScriptedRequest): Promise<ScriptedRequestOutcome>;
  close(): Promise<void>;
}

interface ScriptEntry {
  readonly turn: ScriptedTurn;
  readonly scriptIndex: number;
  used: boolean;
}

/**
 * Starts a real HTTP server that plays a scripted language model, speaking OpenAI Chat Completions
 * (`POST /v1/chat/completions`, streaming SSE or one JSON answer) and Anthropic Messages (`POST /v1/messages`), so
 * tests drive the real AI SDK provider packages over real sockets. It checks requests like the real APIs do
 * (tool call/result pairing, empty blocks, tool names) and answers 400 in the provider's error format when they
 * are wrong.
 */
export async function startScriptedModelServer(
  options: ScriptedModelServerOptions,
): Promise<ScriptedModelServer> {
  const entries: ScriptEntry[] = (options.turns ?? []).map((turn, scriptIndex) => ({
    turn: Array.isArray(turn) ? { steps: turn } : (turn as ScriptedTurn),
    scriptIndex,
    used: false,
  }));
  const requests: ScriptedRequest[] = [];
  const failures: string[] = [];
  const settlers = new Map<ScriptedRequest, Promise<ScriptedRequestOutcome>>();
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
  let sequence = 0;

  const chooseTurn = async (request: ScriptedRequest): Promise<ScriptEntry | undefined> => {
    if (options.handler !== undefined) {
      const answer = await options.handler(request);
      return {
        turn: Array.isArray(answer) ? { steps: answer } : (answer as ScriptedTurn),
        scriptIndex: -1,
        used: false,
      };
    }
    const matching = entries.find((entry) => !entry.used && matches(entry.turn.match, request));
    if (matching !== undefined && matching.turn.repeat !== true) matching.used = true;
    return matching;
  };

  const handle = async (incoming: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = (incoming.url ?? '/').split('?')[0] ?? '/';
    const route = routeOf(incoming.method ?? 'GET', path);
    if (route === 'models') {
      sendJson(response, 200, {
        object: 'list',
        data: [{ id: 'scripted-model', object: 'model', owned_by: 'toolbus' }],
      });
      return;
    }
    if (route === undefined) {
      sendJson(response, 404, {
        error: { message: `no route ${incoming.method} ${path}`, type: 'not_found' },
      });
      return;
    }
    const errorBody = route === 'openai-chat' ? openAiErrorBody : anthropicErrorBody;
    const text = await readBody(incoming, maxBodyBytes);
    if (text === undefined) {
      sendJson(response, 413, errorBody(413, 'request body too large'));
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      sendJson(response, 400, errorBody(400, 'the request body is not valid JSON'));
      return;
    }
    const read: ReadRequest =
      route === 'openai-chat' ? readOpenAiChatRequest(body) : readAnthropicMessagesRequest(body);
    const request = recordedRequest({ route, path, incoming, body, read });
    requests.push(request);
    let settle: (outcome: ScriptedRequestOutcome) => void = () => undefined;
    settlers.set(
      request,
      new Promise((resolve) => {
        settle = resolve;
      }),
    );
    const finish = (outcome: ScriptedRequestOutcome): void => {
      if (request.outcome === 'pending') request.outcome = outcome;
      settle(request.outcome);
    };
    const reject = (status: number, message: string): void => {
      request.rejection = message;
      failures.push(`request ${requests.length - 1}: ${message}`);
      sendJson(response, status, errorBody(status, message));
      finish('rejected');
    };
    if (options.apiKey !== undefined && !hasKey(incoming, options.apiKey)) {
      reject(401, route === 'openai-chat' ? 'Incorrect API key provided.' : 'invalid x-api-key');
      return;
    }
    if (read.problem !== undefined) {
      reject(400, read.problem);
      return;
    }
    const entry = await chooseTurn(request);
    if (entry === undefined) {
      reject(400, 'scripted model server: no scripted turn matches this request');
      return;
    }
    request.turnIndex = entry.scriptIndex >= 0 ? entry.scriptIndex : undefined;
    try {
      entry.turn.assert?.(request);
    } catch (error) {
      reject(
        400,
        `scripted model server: assertion failed: ${error instanceof Error ? error.message : String(error)}`,
      );
      return;
    }
    sequence += 1;
    const steps = expandScriptedSteps(entry.turn.steps);
    const wire = wireOf({ route, read, steps, sequence });
    finish(
      await playTurn({
        steps,
        wire,
        response,
        stream: read.stream,
        errorBody,
      }),
    );
  };

  const server = createServer((incoming, response) => {
    handle(incoming, response).catch((error: unknown) => {
      failures.push(`server error: ${error instanceof Error ? error.message : String(error)}`);
      if (!response.headersSent)
        sendJson(response, 500, { error: { message: 'scripted model server failed' } });
      else response.destroy();
    });
  });
  const url = await listenHttpServer(server, options);
  return {
    url,
    requests,
    failures,
    settled: (request) => settlers.get(request) ?? Promise.resolve(request.outcome),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A request as the server records it: what a test asserts on, with its outcome still pending. */
function recordedRequest(options: {
  readonly route: ScriptedRequest['api'];
  readonly path: string;
  readonly incoming: IncomingMessage;
  readonly body: unknown;
  readonly read: ReadRequest;
}): ScriptedRequest {
  const { read } = options;
  return {
    api: options.route,
    path: options.path,
    headerNames: Object.keys(options.incoming.headers).sort(),
    body: options.body,
    stream: read.stream,
    model: read.model,
    toolNames: read.toolNames,
    messages: read.messages,
    lastMessage: read.messages.at(-1),
    turnIndex: undefined,
    outcome: 'pending',
    rejection: undefined,
  };
}

/** The wire format the answer is written in: the requested API's, with a response id numbered per server. */
function wireOf(options: {
  readonly route: ScriptedRequest['api'];
  readonly read: ReadRequest;
  readonly steps: readonly ExpandedStep[];
  readonly sequence: number;
}): ScriptedWire {
  const { route, read, sequence } = options;
  const model = read.model ?? 'scripted-model';
  return route === 'openai-chat'
    ? createOpenAiChatWire({ model, includeUsage: read.includeUsage, id: `chatcmpl-scripted-${sequence}` })
    : createAnthropicMessagesWire({
        model,
        id: `msg_scripted_${sequence}`,
        inputTokens: scriptedFinishOf(options.steps).inputTokens,
      });
}

async function playTurn(options: {
  steps: readonly ExpandedStep[];
  wire: ScriptedWire;
  response: ServerResponse;
  stream: boolean;
  errorBody: (status: number, message: string) => unknown;
}): Promise<ScriptedRequestOutcome> {
  const { steps, wire, response, stream, errorBody } = options;
  let clientClosed = false;
  response.on('close', () => {
    if (!response.writableFinished) clientClosed = true;
  });
  const dataSteps: ScriptedDataStep[] = [];
  let started = false;
  const startStream = (): void => {
    if (started) return;
    started = true;
    response.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    response.write(wire.begin());
  };
  for (const step of steps) {
    if (clientClosed) return 'client-closed';
    switch (step.type) {
      case 'delay':
        await waitUnlessClosed(step.ms, response);
        continue;
      case 'http-error':
        if (started || response.headersSent) {
          response.destroy();
          return 'dropped';
        }
        sendJson(
          response,
          step.status,
          errorBody(step.status, step.message ?? `scripted HTTP ${step.status}`),
        );
        return 'http-error';
      case 'drop':
        if (stream) startStream();
        response.socket?.destroy();
        response.destroy();
        return 'dropped';
      case 'finish':
        continue;
      default:
        if (!stream) {
          dataSteps.push(step);
          continue;
        }
        startStream();
        response.write(wire.write(step));
    }
  }
  if (clientClosed) return 'client-closed';
  const finish = scriptedFinishOf(steps);
  if (!stream) {
    sendJson(response, 200, wire.complete(dataSteps, finish));
    return 'completed';
  }
  startStream();
  await new Promise<void>((resolve) => response.end(wire.end(finish), () => resolve()));
  return clientClosed ? 'client-closed' : 'completed';
}

function routeOf(method: string, path: string): ScriptedRequest['api'] | 'models' | undefined {
  const normalized = path.replace(/\/+$/, '');
  if (method === 'GET' && (normalized === '/v1/models' || normalized === '/models')) return 'models';
  if (method !== 'POST') return undefined;
  if (normalized === '/v1/chat/completions' || normalized === '/chat/completions') return 'openai-chat';
  if (normalized === '/v1/messages' || normalized === '/messages') return 'anthropic-messages';
  return undefined;
}

function matches(matcher: ScriptedTurnMatcher | undefined, request: ScriptedRequest): boolean {
  if (matcher === undefined) return true;
  if (typeof matcher === 'function') return matcher(request);
  const last = request.lastMessage;
  if (matcher.api !== undefined && matcher.api !== request.api) return false;
  if (matcher.model !== undefined && matcher.model !== request.model) return false;
  if (matcher.lastRole !== undefined && matcher.lastRole !== last?.role) return false;
  if (matcher.hasTool !== undefined && !request.toolNames.includes(matcher.hasTool)) return false;
  if (matcher.lastMessageIncludes !== undefined) {
    const text = `${last?.text ?? ''}${last?.toolResults.map((result) => result.content).join('') ?? ''}`;
    if (!text.includes(matcher.lastMessageIncludes)) return false;
  }
  return true;
}

function hasKey(incoming: IncomingMessage, key: string): boolean {
  const authorization = incoming.headers.authorization;
  const presented =
    typeof authorization === 'string' && authorization.startsWith('Bearer ')
      ? authorization.slice('Bearer '.length)
      : incoming.headers['x-api-key'];
  if (typeof presented !== 'string') return false;
  const expected = Buffer.from(key);
  const actual = Buffer.from(presented);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

async function readBody(incoming: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maxBytes) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

function waitUnlessClosed(ms: number, response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      response.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    response.on('close', done);
  });
}

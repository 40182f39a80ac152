import {
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { omitUndefined } from '@toolbus/spec';
import type { GatewayUpstream } from './gateway-options.ts';

/** An upstream with its key read from the environment and its base URL parsed, once, at start. */
export interface ResolvedUpstream extends GatewayUpstream {
  readonly apiKey: string | undefined;
  readonly target: UpstreamTarget;
}

/**
 * Where an upstream's requests go, from its base URL: parsed once rather than per request (a URL built and parsed
 * for each request, then turned back into request options by `node:http`, was 20 µs of a request's set-up).
 */
export interface UpstreamTarget {
  readonly https: boolean;
  readonly hostname: string;
  readonly port: string;
  /** The base URL's path without its trailing slashes, with its query dropped (`/v1`, or empty). */
  readonly basePath: string;
  /** `user:password` when the base URL carries them (sent as basic auth, as `node:http` does for such a URL). */
  readonly auth: string | undefined;
}

/**
 * The model server's own root, beside its OpenAI-compatible `/v1`: where vLLM serves `/tokenize`, Ollama `/api/show`
 * and llama.cpp `/props`. `path` is a base URL or its path.
 */
export function serverRoot(path: string): string {
  return path.replace(/\/+$/, '').replace(/\/v1$/, '');
}

function targetOf(url: URL): UpstreamTarget {
  return {
    https: url.protocol === 'https:',
    // A bracketed IPv6 literal is a URL's spelling; `node:http` takes the address itself.
    hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port,
    basePath: url.pathname.replace(/\/+$/, ''),
    auth:
      url.username === '' && url.password === ''
        ? undefined
        : `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`,
  };
}

/** The upstream sent no answer head in time: the client gets a 504 (gateway timeout), not a 502. */
export class UpstreamTimeoutError extends Error {
  override readonly name = 'UpstreamTimeoutError';
}

/** The status for an upstream that could not answer: 504 when it timed out, else 502. */
export function unreachableStatus(error: unknown): 502 | 504 {
  return error instanceof UpstreamTimeoutError ? 504 : 502;
}

/** A configuration mistake found at start: named, so the operator can fix it. */
export class GatewayConfigError extends Error {
  override readonly name = 'GatewayConfigError';
}

/** Reads each upstream's key by its variable name; a named variable that is unset stops the start (fail closed). */
export function resolveUpstreams(
  upstreams: readonly GatewayUpstream[],
  env: Readonly<Record<string, string | undefined>>,
): ResolvedUpstream[] {
  if (upstreams.length === 0)
    throw new GatewayConfigError('The gateway needs at least one upstream model server.');
  return upstreams.map((upstream) => {
    let url: URL;
    try {
      url = new URL(upstream.baseUrl);
    } catch {
      throw new GatewayConfigError(`Upstream ${upstream.name}: baseUrl is not a URL.`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new GatewayConfigError(`Upstream ${upstream.name}: baseUrl must be http:// or https://.`);
    const target = targetOf(url);
    if (upstream.apiKeyEnv === undefined) return { ...upstream, apiKey: undefined, target };
    const apiKey = env[upstream.apiKeyEnv];
    if (apiKey === undefined || apiKey === '')
      throw new GatewayConfigError(
        `Upstream ${upstream.name}: its key variable ${upstream.apiKeyEnv} is not set in the environment.`,
      );
    return { ...upstream, apiKey, target };
  });
}

/** The upstream serving `model`: the one that lists it, else the first (the default). */
export function upstreamFor(upstreams: readonly ResolvedUpstream[], model: string): ResolvedUpstream {
  return upstreams.find((upstream) => upstream.models?.includes(model)) ?? (upstreams[0] as ResolvedUpstream);
}

const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 1024 });
const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 1024 });

/** Sends one request to an upstream path (`/chat/completions`, `/models`); resolves with the response head. */
export function sendUpstream(options: {
  upstream: ResolvedUpstream;
  path: string;
  method: 'GET' | 'POST';
  body?: Buffer;
  signal: AbortSignal;
  timeoutMs: number;
  /**
   * Called with the response in the event that brought its head, before its body's first bytes are pushed (the
   * promise resolves a few microtasks later): a caller that starts reading here reads those bytes as they come.
   */
  onResponse?: (response: IncomingMessage) => void;
}): Promise<IncomingMessage> {
  // Cancelled before it started: nothing is sent.
  if (options.signal.aborted) return Promise.reject(cancelled(options.signal));
  const { target } = options.upstream;
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(options.body.length);
  }
  if (options.upstream.apiKey !== undefined) headers.authorization = `Bearer ${options.upstream.apiKey}`;
  const send = target.https ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send({
      hostname: target.hostname,
      port: target.port,
      path: `${target.basePath}${options.path}`,
      ...omitUndefined({ auth: target.auth }),
      method: options.method,
      headers,
      agent: target.https ? httpsAgent : httpAgent,
    });
    cancelOnAbort(request, options.signal);
    const timer = setTimeout(() => {
      request.destroy(
        new UpstreamTimeoutError(`it sent no answer within ${Math.round(options.timeoutMs / 1000)} s`),
      );
    }, options.timeoutMs);
    request.once('response', (response) => {
      clearTimeout(timer);
      options.onResponse?.(response);
      resolve(response);
    });
    request.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.end(options.body);
  });
}

/**
 * Destroys `request` (and the answer it is reading) when `signal` aborts, until the request closes. One listener:
 * `node:http`'s own `signal` option also follows the request's end with half a dozen stream listeners, 27 µs of a
 * request's set-up in a CPU profile of the gateway at 25 streams.
 */
function cancelOnAbort(request: ClientRequest, signal: AbortSignal): void {
  const cancel = (): void => {
    request.destroy(cancelled(signal));
  };
  signal.addEventListener('abort', cancel, { once: true });
  request.once('close', () => signal.removeEventListener('abort', cancel));
}

function cancelled(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('the request was cancelled');
}

/** Whether an upstream answered with a 2xx status. */
export function isSuccess(answer: IncomingMessage): boolean {
  const status = answer.statusCode ?? 502;
  return status >= 200 && status < 300;
}

/** Whether an upstream's answer is a stream of server-sent events. */
export function isEventStream(answer: IncomingMessage): boolean {
  // From the raw header list: `answer.headers` builds an object of every header on first use, 11 µs of a stream's
  // first chunk in a CPU profile at 25 streams, for this one header. The first `content-type` counts, as there.
  const raw = answer.rawHeaders;
  for (let at = 0; at + 1 < raw.length; at += 2)
    if ((raw[at] as string).toLowerCase() === 'content-type')
      return (raw[at + 1] as string).includes('text/event-stream');
  return false;
}

/** Reads an upstream answer body up to `limit` bytes. */
export async function readUpstreamBody(response: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      response.destroy();
      throw new Error(`its answer is larger than ${limit} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** What an upstream's error body says: its message, and OpenAI's `code` and `param` when it names them (bounded). */
export interface UpstreamErrorDetail {
  readonly message: string | undefined;
  readonly code: string | undefined;
  readonly param: string | undefined;
}

/**
 * Reads an upstream's error body: OpenAI's `{error: {message, code, param}}`, vLLM's `{object: "error", message}`,
 * Ollama's `{error: "…"}`.
 */
export function upstreamErrorOf(body: Buffer): UpstreamErrorDetail {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return { message: undefined, code: undefined, param: undefined };
  }
  const outer = isRecord(parsed) ? parsed : {};
  const inner = isRecord(outer.error) ? outer.error : outer;
  const text = (value: unknown, limit: number): string | undefined =>
    typeof value === 'string' && value !== '' ? value.slice(0, limit) : undefined;
  return {
    message: typeof outer.error === 'string' ? outer.error.slice(0, 500) : text(inner.message, 500),
    code: text(inner.code, 100),
    param: text(inner.param, 100),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A network error in words (the code, not a stack). */
export function describeUpstreamFailure(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'ECONNREFUSED') return 'it refused the connection (is it running?)';
  if (code === 'ENOTFOUND') return 'its host name does not resolve';
  if (code === 'ECONNRESET') return 'it closed the connection';
  if (error instanceof Error && error.message) return error.message;
  return 'it could not be reached';
}

import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { GatewayUpstream } from './gateway-options.ts';

/** An upstream with its key read from the environment once, at start. */
export interface ResolvedUpstream extends GatewayUpstream {
  readonly apiKey: string | undefined;
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
    if (upstream.apiKeyEnv === undefined) return { ...upstream, apiKey: undefined };
    const apiKey = env[upstream.apiKeyEnv];
    if (apiKey === undefined || apiKey === '')
      throw new GatewayConfigError(
        `Upstream ${upstream.name}: its key variable ${upstream.apiKeyEnv} is not set in the environment.`,
      );
    return { ...upstream, apiKey };
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
  const base = options.upstream.baseUrl.replace(/\/+$/, '');
  const url = new URL(`${base}${options.path}`);
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(options.body.length);
  }
  if (options.upstream.apiKey !== undefined) headers.authorization = `Bearer ${options.upstream.apiKey}`;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(url, {
      method: options.method,
      headers,
      agent: url.protocol === 'https:' ? httpsAgent : httpAgent,
      signal: options.signal,
    });
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

/** Whether an upstream answered with a 2xx status. */
export function isSuccess(answer: IncomingMessage): boolean {
  const status = answer.statusCode ?? 502;
  return status >= 200 && status < 300;
}

/** Whether an upstream's answer is a stream of server-sent events. */
export function isEventStream(answer: IncomingMessage): boolean {
  return (answer.headers['content-type'] ?? '').includes('text/event-stream');
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

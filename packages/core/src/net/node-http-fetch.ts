import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { FetchFunction } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import { type NodeHttpBodySink, offerNodeHttpBody } from './node-http-body.ts';

/** Options for {@link createNodeHttpFetch}. */
export interface NodeHttpFetchOptions {
  /** Used for what this fetch does not handle itself (a `Request` object, a streamed request body). */
  readonly fallback?: FetchFunction;
}

/**
 * A fetch over node:http and node:https with kept-alive connections and no limit per origin, for the requests a
 * provider package makes to a model: a JSON body out, a streamed body back. Its answer is a standard `Response`
 * whose body is fed straight from the socket's reads, one chunk per read: undici's fetch costs several times more
 * per chunk, and a model streaming a token per read makes that cost per token (with a thousand streams open, a
 * large part of a server's CPU). It fails as fetch does: a connection failure rejects with `TypeError('fetch
 * failed')` whose `cause` is the socket error, an abort with the signal's reason (an `AbortError` by default), a
 * body cut mid-stream errors the stream with a `TypeError`. A redirect goes to `fallback` (fetch follows it by its rules) and nothing is decompressed
 * (it asks for no encoding, so none is sent). Anything else goes to `fallback` (default: the global fetch).
 */
export function createNodeHttpFetch(options: NodeHttpFetchOptions = {}): FetchFunction {
  const fallback = options.fallback ?? ((input, init) => globalThis.fetch(input, init));
  const agents = {
    http: new HttpAgent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY }),
    https: new HttpsAgent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY }),
  };
  return (input, init) => {
    const body = init?.body;
    if (
      input instanceof Request ||
      (body !== undefined && body !== null && typeof body !== 'string' && !(body instanceof Uint8Array))
    ) {
      return fallback(input, init);
    }
    const url = typeof input === 'string' ? new URL(input) : input;
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return fallback(input, init);
    // Node's fetch sends requests through HTTP_PROXY / HTTPS_PROXY when NODE_USE_ENV_PROXY is set; node:http
    // does not, so such a machine keeps fetch (a model behind a proxy must stay reachable).
    if (process.env.NODE_USE_ENV_PROXY) return fallback(input, init);
    const signal = init?.signal ?? undefined;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise<Response>((resolve, reject) => {
      const secure = url.protocol === 'https:';
      const outgoing = (secure ? httpsRequest : httpRequest)(url, {
        method: init?.method ?? 'GET',
        headers: headersOf(init?.headers),
        agent: secure ? agents.https : agents.http,
      });
      let response: IncomingMessage | undefined;
      let fail = (error: unknown) => reject(error);
      const onAbort = () => {
        const reason = abortReason(signal as AbortSignal);
        fail(reason);
        outgoing.destroy();
        response?.destroy();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => signal?.removeEventListener('abort', onAbort);
      outgoing.once('error', (error) => {
        done();
        fail(signal?.aborted ? abortReason(signal) : new TypeError('fetch failed', { cause: error }));
      });
      outgoing.once('response', (incoming) => {
        response = incoming;
        const status = incoming.statusCode ?? 200;
        // A redirect (a model endpoint moved, a gateway sending clients on) is followed as fetch follows it: the
        // request goes to `fallback`, which applies fetch's rules (method, body, `redirect` mode, limits).
        if (redirectStatuses.has(status) && incoming.headers.location !== undefined) {
          incoming.resume();
          done();
          resolve(fallback(input, init));
          return;
        }
        const headers = headersFrom(incoming.rawHeaders);
        if (status === 204 || status === 205 || status === 304 || init?.method === 'HEAD') {
          incoming.resume();
          done();
          resolve(new Response(null, { status, statusText: incoming.statusMessage ?? '', headers }));
          return;
        }
        let closed = false;
        // Until the body's web stream is read, its reads are also kept here, for a reader that takes the body
        // as node:http delivers it (takeNodeHttpBody); once taken, `sink` gets everything.
        let early: Buffer[] | undefined = [];
        let ended: { error: unknown } | 'end' | undefined;
        let sink: NodeHttpBodySink | undefined;
        const stream: ReadableStream<Uint8Array> = new ReadableStream<Uint8Array>(
          {
            start(controller) {
              fail = (error) => {
                if (closed) return;
                closed = true;
                if (sink !== undefined) sink.error(error);
                else {
                  ended = { error };
                  controller.error(error);
                }
              };
              incoming.on('data', (chunk: Buffer) => {
                if (sink !== undefined) {
                  if (!closed) sink.data(chunk);
                  return;
                }
                if (closed) return;
                if (early !== undefined) {
                  if (stream.locked) early = undefined;
                  else early.push(chunk);
                }
                controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
                // A reader that does not keep up stops the socket's reads until it pulls again.
                if ((controller.desiredSize ?? 1) <= 0) incoming.pause();
              });
              incoming.once('end', () => {
                done();
                if (closed) return;
                closed = true;
                if (sink !== undefined) sink.end();
                else {
                  ended = 'end';
                  controller.close();
                }
              });
              incoming.once('error', (error) => {
                done();
                fail(signal?.aborted ? abortReason(signal) : terminated(error));
              });
              incoming.once('close', () => {
                done();
                if (!incoming.complete) fail(terminated());
              });
            },
            pull() {
              if (incoming.isPaused()) incoming.resume();
            },
            cancel() {
              closed = true;
              done();
              incoming.destroy();
            },
          },
          new CountQueuingStrategy({ highWaterMark: 16 }),
        );
        const answer = new Response(stream, { status, statusText: incoming.statusMessage ?? '', headers });
        offerNodeHttpBody(answer, {
          start(taker) {
            const before = early ?? [];
            early = undefined;
            sink = taker;
            for (const chunk of before) taker.data(chunk);
            if (ended === 'end') taker.end();
            else if (ended !== undefined) taker.error(ended.error);
            else if (incoming.isPaused()) incoming.resume();
          },
          pause: () => incoming.pause(),
          resume: () => incoming.resume(),
          destroy() {
            closed = true;
            done();
            incoming.destroy();
          },
        });
        resolve(answer);
      });
      outgoing.end(body ?? undefined);
    });
  };
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/**
 * The error of a body whose connection closed before it ended: fetch's `TypeError("terminated")`, with a cause
 * that says so in words (node:http's own reason is only "aborted").
 */
function terminated(error?: Error): TypeError {
  const cause = new Error(
    'the server closed the connection before the body ended',
    omitUndefined({ cause: error }),
  );
  return new TypeError('terminated', { cause });
}

function headersFrom(raw: readonly string[]): Headers {
  const headers = new Headers();
  for (let index = 0; index + 1 < raw.length; index += 2) {
    headers.append(raw[index] as string, raw[index + 1] as string);
  }
  return headers;
}

function headersOf(headers: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers === undefined) return out;
  if (headers instanceof Headers || Array.isArray(headers)) {
    for (const [name, value] of headers instanceof Headers ? headers : headers) {
      out[name.toLowerCase()] = value;
    }
    return out;
  }
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { sseData } from '@toolbus/core/repair';
import { isPlainObject, omitUndefined } from '@toolbus/spec';
import type { GatewayContext } from './gateway-context.ts';
import { sendError, sendErrorInStream } from './gateway-error.ts';
import { modelHeaders, withModelName } from './model-aliases.ts';
import { relayEvents } from './relay-events.ts';
import { clientStatusFor, relayUpstreamError } from './relay-upstream-error.ts';
import { resolveModel } from './served-models.ts';
import {
  describeUpstreamFailure,
  isEventStream,
  isSuccess,
  readUpstreamBody,
  sendUpstream,
  unreachableStatus,
  upstreamFor,
} from './upstream.ts';

/** The routes passed through untouched: nothing to repair in them (no tools), only the model name is resolved. */
export const PASS_THROUGH_PATHS = ['/v1/completions', '/v1/embeddings'] as const;

/**
 * `POST /v1/completions` and `POST /v1/embeddings` (Continue asks them for autocomplete and for indexing), sent to
 * the upstream that serves the model, behind the same keys, limits and size caps as the other routes. The model
 * name is resolved through the aliases; the answer comes back as the upstream wrote it (a stream as its events),
 * with the name the client asked for in `model` when an alias applied. Upstream errors are OpenAI's error bodies,
 * and a client that goes away cancels the upstream request.
 */
export async function forwardPassThrough(options: {
  context: GatewayContext;
  path: (typeof PASS_THROUGH_PATHS)[number];
  bytes: Buffer;
  request: IncomingMessage;
  response: ServerResponse;
}): Promise<void> {
  const { context, response, path } = options;
  let body: unknown;
  try {
    body = JSON.parse(options.bytes.toString('utf8'));
  } catch {
    sendError(response, { dialect: 'openai', status: 400, message: 'The request body is not valid JSON.' });
    return;
  }
  if (!isPlainObject(body) || typeof body.model !== 'string' || body.model === '') {
    sendError(response, {
      dialect: 'openai',
      status: 400,
      param: 'model',
      message: 'model: a model name is required.',
    });
    return;
  }
  const model = await resolveModel(context, body.model);
  const aliased = model.served !== model.asked;
  const upstream = upstreamFor(context.upstreams, model.served);
  const bytes = aliased ? Buffer.from(JSON.stringify({ ...body, model: model.served })) : options.bytes;
  const abort = new AbortController();
  const onClose = (): void => {
    if (!response.writableFinished) abort.abort();
  };
  response.once('close', onClose);
  const log = (status: number, outcome?: string): void =>
    context.log({
      event: 'request',
      upstream: upstream.name,
      model: model.asked,
      ...(aliased ? { served: model.served } : {}),
      status,
      ...omitUndefined({ outcome }),
    });
  const headers = { 'x-toolbus-upstream': upstream.name, ...modelHeaders(model) };
  try {
    const answer = await sendUpstream({
      upstream,
      path: path.slice('/v1'.length),
      method: 'POST',
      body: bytes,
      signal: abort.signal,
      timeoutMs: context.upstreamTimeoutMs,
    });
    const status = answer.statusCode ?? 502;
    if (!isSuccess(answer)) {
      await relayUpstreamError({
        upstream,
        upstreamResponse: answer,
        response,
        status,
        dialect: 'openai',
        path: path.slice('/v1'.length),
        context,
      });
      log(clientStatusFor(status), 'upstream-error');
      return;
    }
    if (isEventStream(answer)) {
      response.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        ...headers,
      });
      await relayEvents({
        upstreamResponse: answer,
        response,
        // Unaliased, each event goes on as the upstream's own bytes.
        repair: aliased ? (data) => sseData(withModelName(data, model.asked)) : () => undefined,
        quick: () => true,
      });
      response.end();
    } else {
      const text = (await readUpstreamBody(answer, context.maxResponseBytes)).toString('utf8');
      const out = aliased ? withModelName(text, model.asked) : text;
      response.writeHead(200, {
        'content-type': answer.headers['content-type'] ?? 'application/json',
        'content-length': Buffer.byteLength(out),
        ...headers,
      });
      response.end(out);
    }
    log(200);
  } catch (error) {
    if (abort.signal.aborted) {
      log(499, 'client-closed');
      return;
    }
    const status = response.headersSent ? 502 : unreachableStatus(error);
    sendErrorInStream(response, {
      dialect: 'openai',
      status,
      code: status === 504 ? 'upstream_timeout' : 'upstream_failed',
      message: `The upstream model server ${upstream.name} failed: ${describeUpstreamFailure(error)}.`,
    });
    log(status, 'upstream-failed');
  } finally {
    response.off('close', onClose);
  }
}

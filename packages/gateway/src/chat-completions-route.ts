import type { IncomingMessage, ServerResponse } from 'node:http';
import { sseData } from '@toolbus/core/repair';
import { isPlainObject } from '@toolbus/spec';
import {
  type ChatCompletionRepairOptions,
  ChatCompletionStreamRepair,
  type RecoveryReport,
  repairChatCompletion,
} from './chat-completion-repair.ts';
import { endsAChoice } from './choice-finish-chunk.ts';
import type { GatewayContext } from './gateway-context.ts';
import { type ErrorDialect, sendError, sendErrorInStream } from './gateway-error.ts';
import { modelHeaders, type ResolvedModel, withModelName } from './model-aliases.ts';
import { plainContentOf } from './plain-content-chunk.ts';
import { RECOVERY_TRAILERS, recoveryHeaders, recoveryLogFields, takesTrailers } from './recovery-headers.ts';
import { relayEvents } from './relay-events.ts';
import { clientStatusFor, relayUpstreamError } from './relay-upstream-error.ts';
import { requestToolDefinitions } from './request-tools.ts';
import { resolveModel } from './served-models.ts';
import {
  describeUpstreamFailure,
  isEventStream,
  isSuccess,
  type ResolvedUpstream,
  readUpstreamBody,
  sendUpstream,
  unreachableStatus,
  upstreamFor,
} from './upstream.ts';

/** A parsed Chat Completions request, ready to forward. */
export interface ChatCompletionsCall {
  readonly body: Record<string, unknown>;
  /** The bytes to forward (the client's own, untouched, unless the route had to translate). */
  readonly bytes: Buffer;
  readonly model: string;
  readonly stream: boolean;
}

/** Checks a Chat Completions body's few fields the gateway relies on; answers 400 and returns undefined if wrong. */
export function readChatCompletionsCall(
  bytes: Buffer,
  response: ServerResponse,
  dialect: ErrorDialect = 'openai',
): ChatCompletionsCall | undefined {
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch {
    sendError(response, { dialect, status: 400, message: 'The request body is not valid JSON.' });
    return undefined;
  }
  if (!isPlainObject(body)) {
    sendError(response, { dialect, status: 400, message: 'The request body must be a JSON object.' });
    return undefined;
  }
  if (typeof body.model !== 'string' || body.model === '') {
    sendError(response, {
      dialect,
      status: 400,
      param: 'model',
      message: 'model: a model name is required.',
    });
    return undefined;
  }
  if (!Array.isArray(body.messages)) {
    sendError(response, {
      dialect,
      status: 400,
      param: 'messages',
      message: 'messages: an array of messages is required.',
    });
    return undefined;
  }
  // The legacy function-calling fields are refused rather than forwarded: recovery reads only `tools`, and an
  // answer would come back as `tool_calls`, which a client that sent `functions` does not read.
  for (const legacy of ['functions', 'function_call'] as const) {
    if (body[legacy] === undefined) continue;
    sendError(response, {
      dialect,
      status: 400,
      param: legacy,
      message: `${legacy}: the deprecated function-calling fields are not supported by the gateway; send tools and tool_choice instead.`,
    });
    return undefined;
  }
  if (body.tools !== undefined && !Array.isArray(body.tools)) {
    sendError(response, {
      dialect,
      status: 400,
      param: 'tools',
      message: 'tools: must be an array of tools.',
    });
    return undefined;
  }
  return { body, bytes, model: body.model, stream: body.stream === true };
}

/** Forwards a Chat Completions request to its upstream and answers with the repaired response. */
export async function forwardChatCompletions(options: {
  context: GatewayContext;
  call: ChatCompletionsCall;
  request: IncomingMessage;
  response: ServerResponse;
}): Promise<void> {
  const { context, response } = options;
  // An alias names the model the upstream serves; the answer names the one the client asked for.
  const model = await resolveModel(context, options.call.model);
  const call = model.served === model.asked ? options.call : servedCall(options.call, model.served);
  const upstream = upstreamFor(context.upstreams, call.model);
  const tools = requestToolDefinitions(call.body);
  const abort = new AbortController();
  // A client that goes away cancels the upstream request (and the model's work behind it).
  const onClose = (): void => {
    if (!response.writableFinished) abort.abort();
  };
  response.once('close', onClose);
  const logEnd = (
    status: number,
    report: RecoveryReport | undefined,
    extra: Record<string, string> = {},
  ): void =>
    context.log({
      event: 'request',
      upstream: upstream.name,
      model: model.asked,
      ...(model.served !== model.asked ? { served: model.served } : {}),
      stream: call.stream,
      tools: tools.length,
      status,
      ...recoveryLogFields(report),
      ...extra,
    });
  // The dialects (a served template may be fetched) and, for a stream, its repair are made while the upstream
  // works on the first token, not on the first chunk's path: there they delayed the first chunk of every stream.
  let ready: { streamRepair: ChatCompletionStreamRepair | undefined } | undefined;
  const prepared = context.dialectsFor(upstream, call.model).then((dialects) => {
    const repairOptions: ChatCompletionRepairOptions = {
      tools,
      modelId: call.model,
      preferredDialects: dialects.dialects,
      parsers: dialects.parsers,
      maxCalls: call.body.parallel_tool_calls === false ? 1 : undefined,
    };
    ready = { streamRepair: call.stream ? new ChatCompletionStreamRepair(repairOptions) : undefined };
    return { repairOptions, streamRepair: ready.streamRepair };
  });
  // Awaited below once the upstream answers; a request that ends before then must not leave it unhandled.
  prepared.catch(() => {});
  let upstreamResponse: IncomingMessage;
  // A stream's relay, when it started with the upstream's head (see `onResponse`).
  let relaying: Promise<RecoveryReport> | undefined;
  try {
    upstreamResponse = await sendUpstream({
      upstream,
      path: '/chat/completions',
      method: 'POST',
      body: call.bytes,
      signal: abort.signal,
      timeoutMs: context.upstreamTimeoutMs,
      // A model server's first chunk often comes in the read that brings the head: relayed from here, it goes out
      // in that read, not after the awaits below and the paused stream's resume (a first chunk took 49 us from
      // its bytes to the client's socket in the gateway, 7 us in a relay that listens from here).
      onResponse: (answer) => {
        const streamRepair = ready?.streamRepair;
        if (streamRepair === undefined || !isSuccess(answer) || !isEventStream(answer)) return;
        relaying = relayStream({
          upstream,
          upstreamResponse: answer,
          request: options.request,
          response,
          repair: streamRepair,
          model,
        });
        // Awaited below, a few microtasks later; an upstream that breaks off before then must not go unhandled.
        relaying.catch(() => {});
      },
    });
  } catch (error) {
    if (abort.signal.aborted) {
      logEnd(499, undefined, { outcome: 'client-closed' });
      return;
    }
    const status = unreachableStatus(error);
    sendError(response, {
      dialect: 'openai',
      status,
      code: status === 504 ? 'upstream_timeout' : 'upstream_unreachable',
      message: `The upstream model server ${upstream.name} could not be reached: ${describeUpstreamFailure(error)}.`,
    });
    logEnd(status, undefined, { outcome: 'upstream-unreachable' });
    return;
  }
  const status = upstreamResponse.statusCode ?? 502;
  if (!isSuccess(upstreamResponse)) {
    await relayUpstreamError({ upstream, upstreamResponse, response, status, dialect: 'openai', context });
    logEnd(clientStatusFor(status), undefined, { outcome: 'upstream-error' });
    return;
  }
  const streamed = isEventStream(upstreamResponse);
  const { repairOptions, streamRepair } = await prepared;
  try {
    const report = relaying
      ? await relaying
      : streamed
        ? await relayStream({
            upstream,
            upstreamResponse,
            request: options.request,
            response,
            repair: streamRepair ?? new ChatCompletionStreamRepair(repairOptions),
            model,
          })
        : await relayCompletion({ context, upstream, upstreamResponse, response, repairOptions, model });
    logEnd(200, report);
  } catch (error) {
    if (abort.signal.aborted) {
      logEnd(499, undefined, { outcome: 'client-closed' });
      return;
    }
    sendErrorInStream(response, {
      dialect: 'openai',
      status: 502,
      code: 'upstream_failed',
      message: `The upstream model server ${upstream.name} failed mid-answer: ${describeUpstreamFailure(error)}.`,
    });
    logEnd(502, undefined, { outcome: 'upstream-broke' });
  } finally {
    response.off('close', onClose);
  }
}

/** The call as the upstream gets it: the served model's name in place of the alias the client sent. */
function servedCall(call: ChatCompletionsCall, served: string): ChatCompletionsCall {
  return { ...call, model: served, bytes: Buffer.from(JSON.stringify({ ...call.body, model: served })) };
}

/** What relaying one streamed answer needs, whatever the format it leaves in. */
export interface StreamRelay {
  readonly upstream: ResolvedUpstream;
  readonly upstreamResponse: IncomingMessage;
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  /** The model asked for and served; an alias adds `x-toolbus-model` to the head. */
  readonly model?: ResolvedModel;
}

async function relayStream(
  options: StreamRelay & { readonly repair: ChatCompletionStreamRepair; readonly model: ResolvedModel },
): Promise<RecoveryReport> {
  const { repair, model } = options;
  // Unaliased (nearly always), each chunk is the repair's; aliased, each one's `model` is renamed on its way out.
  const repaired =
    model.served === model.asked
      ? (data: string) => repair.repair(data)
      : (data: string) => {
          const out = repair.repair(data);
          return out === ''
            ? out
            : out === undefined
              ? sseData(withModelName(data, model.asked))
              : withModelName(out, model.asked);
        };
  return relayRepairedStream({ ...options, repair: repaired, report: () => repair.report });
}

/**
 * Relays a streamed answer through `repair`, whatever format it leaves in: the head, each read's pieces of text at
 * once and a choice's end (the recovery) in its turn, what `rest` has left once the upstream ended, then the end
 * with the recovery trailers. Resolves with what recovery did.
 */
export async function relayRepairedStream(
  options: StreamRelay & {
    readonly repair: (data: string) => string | undefined;
    readonly rest?: () => string;
    readonly report: () => RecoveryReport;
  },
): Promise<RecoveryReport> {
  const { response, repair } = options;
  const trailers = writeStreamHead(options);
  await relayEvents({
    upstreamResponse: options.upstreamResponse,
    response,
    repair,
    // A piece of text goes through the answer filter alone; a choice's end recovers the calls from the whole text,
    // so it always waits its turn.
    quick: (data) => plainContentOf(data) !== undefined,
    ends: endsAChoice,
  });
  const rest = options.rest?.() ?? '';
  if (rest !== '') response.write(rest);
  const report = options.report();
  endStream(response, trailers, report);
  return report;
}

/** Sends a relayed stream's head; returns whether the client takes the recovery trailers (see `takesTrailers`). */
function writeStreamHead(options: StreamRelay): boolean {
  const trailers = takesTrailers(options.request);
  options.response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-toolbus-upstream': options.upstream.name,
    ...(options.model !== undefined ? modelHeaders(options.model) : {}),
    ...(trailers ? { trailer: RECOVERY_TRAILERS } : {}),
  });
  return trailers;
}

/** Ends a relayed stream, with the recovery trailers when the client takes them. */
function endStream(response: ServerResponse, trailers: boolean, report: RecoveryReport): void {
  if (trailers) response.addTrailers(recoveryHeaders(report));
  response.end();
}

async function relayCompletion(options: {
  context: GatewayContext;
  upstream: ResolvedUpstream;
  upstreamResponse: IncomingMessage;
  response: ServerResponse;
  repairOptions: ChatCompletionRepairOptions;
  model: ResolvedModel;
}): Promise<RecoveryReport> {
  const bytes = await readUpstreamBody(options.upstreamResponse, options.context.maxResponseBytes);
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new Error('its answer is not JSON');
  }
  const { body, report } = repairChatCompletion(parsed, options.repairOptions);
  const { asked, served } = options.model;
  if (asked !== served && isPlainObject(body)) body.model = asked;
  const text = JSON.stringify(body);
  options.response.writeHead(200, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'x-toolbus-upstream': options.upstream.name,
    ...modelHeaders(options.model),
    ...recoveryHeaders(report),
  });
  options.response.end(text);
  return report;
}

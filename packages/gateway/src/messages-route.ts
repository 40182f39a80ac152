import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RecoveryDialects } from '@toolbus/core/repair';
import { omitUndefined } from '@toolbus/spec';
import { MessagesRequestError, messagesToChatCompletions } from './anthropic-request.ts';
import {
  type AnthropicRepairOptions,
  AnthropicStreamWriter,
  chatCompletionToMessage,
} from './anthropic-response.ts';
import type { RecoveryReport } from './chat-completion-repair.ts';
import { relayRepairedStream, type StreamRelay } from './chat-completions-route.ts';
import type { GatewayContext } from './gateway-context.ts';
import { sendError, sendErrorInStream } from './gateway-error.ts';
import { modelHeaders } from './model-aliases.ts';
import { recoveryHeaders, recoveryLogFields } from './recovery-headers.ts';
import { clientStatusFor, relayUpstreamError } from './relay-upstream-error.ts';
import { requestToolDefinitions } from './request-tools.ts';
import { resolveModel } from './served-models.ts';
import { refusedStreamOptions, streamOptionsFor } from './stream-options-fallback.ts';
import {
  describeUpstreamFailure,
  isEventStream,
  isSuccess,
  readUpstreamBody,
  sendUpstream,
  unreachableStatus,
  upstreamFor,
} from './upstream.ts';

/**
 * `POST /v1/messages`: an Anthropic Messages request, translated to Chat Completions for the upstream, and its
 * answer translated back with the calls written as text turned into `tool_use` blocks, so agent tools that speak
 * Anthropic's format can use a local model.
 */
export async function forwardMessages(options: {
  context: GatewayContext;
  bytes: Buffer;
  request: IncomingMessage;
  response: ServerResponse;
}): Promise<void> {
  const { context, response } = options;
  let chat: Record<string, unknown>;
  try {
    chat = messagesToChatCompletions(JSON.parse(options.bytes.toString('utf8')));
  } catch (error) {
    const message =
      error instanceof MessagesRequestError ? error.message : 'The request body is not valid JSON.';
    sendError(response, { dialect: 'anthropic', status: 400, message });
    return;
  }
  // An alias (Claude Code sends `claude-…` names) names the model the upstream serves; the answer keeps the asked one.
  const resolved = await resolveModel(context, chat.model as string);
  const model = resolved.asked;
  chat.model = resolved.served;
  const stream = chat.stream === true;
  const upstream = upstreamFor(context.upstreams, resolved.served);
  const tools = requestToolDefinitions(chat);
  const repairOptions = (dialects: RecoveryDialects): AnthropicRepairOptions => ({
    tools,
    model,
    servedModel: resolved.served,
    dialects,
    maxCalls: chat.parallel_tool_calls === false ? 1 : undefined,
    stopSequences: Array.isArray(chat.stop)
      ? chat.stop.filter((stop) => typeof stop === 'string')
      : undefined,
  });
  const abort = new AbortController();
  const onClose = (): void => {
    if (!response.writableFinished) abort.abort();
  };
  response.once('close', onClose);
  const log = (status: number, report?: RecoveryReport, outcome?: string): void =>
    context.log({
      event: 'request',
      upstream: upstream.name,
      model,
      ...(resolved.alias !== undefined && resolved.served !== model ? { served: resolved.served } : {}),
      stream,
      tools: tools.length,
      status,
      ...recoveryLogFields(report),
      ...omitUndefined({ outcome }),
    });
  // As in the Chat Completions route: the dialects and a stream's writer are made while the upstream works.
  let readyWriter: AnthropicStreamWriter | undefined;
  const prepared = context.dialectsFor(upstream, resolved.served).then((dialects) => {
    readyWriter = stream ? new AnthropicStreamWriter(repairOptions(dialects)) : undefined;
    return { dialects, writer: readyWriter };
  });
  prepared.catch(() => {});
  // A stream's relay, when it started with the upstream's head (see the Chat Completions route).
  let relaying: Promise<RecoveryReport> | undefined;
  const relay = (upstreamResponse: IncomingMessage, writer: AnthropicStreamWriter) =>
    relayMessagesStream({
      upstream,
      upstreamResponse,
      request: options.request,
      response,
      writer,
      model: resolved,
    });
  const send = () =>
    sendUpstream({
      upstream,
      path: '/chat/completions',
      method: 'POST',
      body: Buffer.from(JSON.stringify(streamOptionsFor(upstream, chat))),
      signal: abort.signal,
      timeoutMs: context.upstreamTimeoutMs,
      onResponse: (answer) => {
        if (readyWriter === undefined || !isSuccess(answer) || !isEventStream(answer)) return;
        relaying = relay(answer, readyWriter);
        relaying.catch(() => {});
      },
    });
  try {
    let upstreamResponse = await send();
    let status = upstreamResponse.statusCode ?? 502;
    let errorBody: Buffer | undefined;
    if (!isSuccess(upstreamResponse) && streamOptionsFor(upstream, chat).stream_options !== undefined) {
      errorBody = await readUpstreamBody(upstreamResponse, 64 * 1024).catch(() => Buffer.alloc(0));
      if (refusedStreamOptions(upstream, status, errorBody)) {
        context.log({ event: 'stream-options-refused', upstream: upstream.name });
        upstreamResponse = await send();
        status = upstreamResponse.statusCode ?? 502;
        errorBody = undefined;
      }
    }
    if (!isSuccess(upstreamResponse)) {
      await relayUpstreamError({
        upstream,
        upstreamResponse,
        response,
        status,
        dialect: 'anthropic',
        context,
        ...omitUndefined({ body: errorBody }),
      });
      log(clientStatusFor(status), undefined, 'upstream-error');
      return;
    }
    const { dialects, writer: preparedWriter } = await prepared;
    if (relaying !== undefined || isEventStream(upstreamResponse)) {
      const report = await (relaying ??
        relay(upstreamResponse, preparedWriter ?? new AnthropicStreamWriter(repairOptions(dialects))));
      log(200, report);
      return;
    }
    const body = JSON.parse(
      (await readUpstreamBody(upstreamResponse, context.maxResponseBytes)).toString('utf8'),
    );
    const { message, report } = chatCompletionToMessage(body, repairOptions(dialects));
    const text = JSON.stringify(message);
    response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      'x-toolbus-upstream': upstream.name,
      ...modelHeaders(resolved),
      ...recoveryHeaders(report),
    });
    response.end(text);
    log(200, report);
  } catch (error) {
    if (abort.signal.aborted) {
      log(499, undefined, 'client-closed');
      return;
    }
    const status = unreachableStatus(error);
    sendErrorInStream(response, {
      dialect: 'anthropic',
      status,
      message: `The upstream model server ${upstream.name} failed: ${describeUpstreamFailure(error)}.`,
    });
    log(status, undefined, 'upstream-failed');
  } finally {
    response.off('close', onClose);
  }
}

/** Relays a streamed answer as Anthropic's events; resolves with what recovery did. */
function relayMessagesStream(
  options: StreamRelay & { readonly writer: AnthropicStreamWriter },
): Promise<RecoveryReport> {
  const { writer } = options;
  return relayRepairedStream({
    ...options,
    repair: (data) => writer.push(data),
    rest: () => writer.end(),
    report: () => writer.report,
  });
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { omitUndefined } from '@toolbus/spec';
import type { GatewayContext } from './gateway-context.ts';
import { type ErrorDialect, sendError } from './gateway-error.ts';
import { collectModels, servedModelsSentence } from './models-route.ts';
import { type ResolvedUpstream, readUpstreamBody, upstreamErrorOf } from './upstream.ts';
import { saysModelIsMissing } from './upstream-missing-model.ts';

/** An upstream's error status, answered in the client's format with the upstream's own message when readable. */
export async function relayUpstreamError(options: {
  upstream: ResolvedUpstream;
  upstreamResponse: IncomingMessage;
  response: ServerResponse;
  status: number;
  dialect: ErrorDialect;
  /**
   * The path the gateway asked the upstream, below its base URL: named when it has none. Default
   * `/chat/completions`, which both repairing routes ask.
   */
  path?: string;
  /** Given, an upstream's 404 also names the models the gateway serves (the name was likely mistyped). */
  context?: GatewayContext;
  /** The error body, when the caller read it already. */
  body?: Buffer;
}): Promise<void> {
  const body =
    options.body ??
    (await readUpstreamBody(options.upstreamResponse, 64 * 1024).catch(() => Buffer.alloc(0)));
  const said = upstreamErrorOf(body);
  const upstreamName = options.upstream.name;
  if (options.status === 404 && !saysModelIsMissing(404, said)) {
    // Not "no such model": the upstream has no such route (a base URL without `/v1`, a server that does not speak
    // the API). The gateway's configuration is at fault, not the client's request: 502, as for an unreachable one.
    const path = `${options.upstream.target.basePath}${options.path ?? '/chat/completions'}`;
    sendError(options.response, {
      dialect: options.dialect,
      status: 502,
      code: 'upstream_route_not_found',
      message: `The upstream model server ${upstreamName} answered 404 to POST ${path} without saying that the model is missing (${bodyInWords(body, said.message)}): most likely it has no such route. Check that its baseUrl points at its OpenAI-compatible API (usually ending in /v1).`,
    });
    return;
  }
  const modelMissing = saysModelIsMissing(options.status, said);
  const served =
    modelMissing && options.context !== undefined
      ? ` ${servedModelsSentence(options.context, (await collectModels(options.context, 2_000)).data)}`
      : '';
  // An unknown model is OpenAI's 404 `model_not_found` whichever way the upstream said it (llama.cpp's router
  // answers it with a 400).
  const status = modelMissing ? 404 : clientStatusFor(options.status);
  const refusedKey = options.status === 401 || options.status === 403;
  // The upstream's own code and param go on (a client matches on them).
  const code = refusedKey
    ? 'upstream_key_refused'
    : modelMissing
      ? 'model_not_found'
      : (said.code ?? 'upstream_error');
  sendError(options.response, {
    dialect: options.dialect,
    status,
    code,
    ...omitUndefined({ param: said.param }),
    message: `The upstream model server ${upstreamName} answered ${options.status}${said.message ? `: ${sentence(said.message)}` : '.'}${refusedKey ? ' The gateway’s key for it (apiKeyEnv) was refused.' : ''}${served}`,
  });
}

// What a 404's body said, in a few words: its message, or what it was (an HTML page, nothing, some text).
function bodyInWords(body: Buffer, message: string | undefined): string {
  if (message !== undefined) return `it said: ${JSON.stringify(message.slice(0, 200))}`;
  const text = body.toString('utf8').replace(/\s+/g, ' ').trim();
  if (text === '') return 'an empty body';
  if (/^<(?:!doctype|html)/i.test(text)) return 'an HTML page';
  return `its body: ${text.slice(0, 200)}`;
}

// The upstream's message as a sentence, so what the gateway adds after it reads as one of its own.
function sentence(text: string): string {
  return /[.!?]$/.test(text.trimEnd()) ? text.trimEnd() : `${text.trimEnd()}.`;
}

/**
 * The status a client gets for an upstream's error status: a 4xx about the request goes on as it is; the
 * upstream's 5xx (or anything else) is a 502, and so are its 401 and 403, which refuse the gateway's key for the
 * upstream, not the client's (passed on, an agent such as Claude Code would ask its user to log in again).
 */
export function clientStatusFor(upstreamStatus: number): number {
  if (upstreamStatus === 401 || upstreamStatus === 403) return 502;
  return upstreamStatus >= 500 || upstreamStatus < 400 ? 502 : upstreamStatus;
}

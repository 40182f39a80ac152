import type { IncomingMessage, ServerResponse } from 'node:http';
import { omitUndefined } from '@toolbus/spec';
import type { GatewayContext } from './gateway-context.ts';
import { type ErrorDialect, sendError } from './gateway-error.ts';
import { collectModels, servedModelsSentence } from './models-route.ts';
import { type ResolvedUpstream, readUpstreamBody, upstreamErrorOf } from './upstream.ts';

/** An upstream's error status, answered in the client's format with the upstream's own message when readable. */
export async function relayUpstreamError(options: {
  upstream: ResolvedUpstream;
  upstreamResponse: IncomingMessage;
  response: ServerResponse;
  status: number;
  dialect: ErrorDialect;
  /** Given, an upstream's 404 also names the models the gateway serves (the name was likely mistyped). */
  context?: GatewayContext;
  /** The error body, when the caller read it already. */
  body?: Buffer;
}): Promise<void> {
  const body =
    options.body ??
    (await readUpstreamBody(options.upstreamResponse, 64 * 1024).catch(() => Buffer.alloc(0)));
  const said = upstreamErrorOf(body);
  const served =
    options.status === 404 && options.context !== undefined
      ? ` ${servedModelsSentence(options.context, (await collectModels(options.context, 2_000)).data)}`
      : '';
  const status = clientStatusFor(options.status);
  const refusedKey = options.status === 401 || options.status === 403;
  // The upstream's own code and param go on (a client matches on them); a bare 404 from a model server's
  // completions route is its "no such model" (vLLM, Ollama and llama.cpp all answer an unknown model so).
  const code = refusedKey
    ? 'upstream_key_refused'
    : (said.code ?? (options.status === 404 ? 'model_not_found' : 'upstream_error'));
  sendError(options.response, {
    dialect: options.dialect,
    status,
    code,
    ...omitUndefined({ param: said.param }),
    message: `The upstream model server ${options.upstream.name} answered ${options.status}${said.message ? `: ${sentence(said.message)}` : '.'}${refusedKey ? ' The gateway’s key for it (apiKeyEnv) was refused.' : ''}${served}`,
  });
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

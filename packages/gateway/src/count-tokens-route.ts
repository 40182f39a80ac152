import type { ServerResponse } from 'node:http';
import { roughTokenCount } from '@toolbus/core/repair';
import { isPlainObject } from '@toolbus/spec';
import { MessagesRequestError, messagesToChatCompletions } from './anthropic-request.ts';
import type { GatewayContext } from './gateway-context.ts';
import { sendError } from './gateway-error.ts';
import { resolveModel } from './served-models.ts';
import {
  describeUpstreamFailure,
  type ResolvedUpstream,
  readUpstreamBody,
  sendUpstream,
  serverRoot,
  upstreamFor,
} from './upstream.ts';

/** Says where a count came from: the upstream's tokenizer, or the gateway's estimate. */
export const TOKEN_COUNT_HEADER = 'x-toolbus-token-count';

// Upstreams that answered 404 or 405 at `/tokenize` (Ollama, LM Studio): not asked again.
const withoutTokenize = new WeakSet<ResolvedUpstream>();

// What one image costs, in the estimate: Anthropic's own figure for an image at its largest size before scaling.
const IMAGE_TOKENS = 1600;

/**
 * `POST /v1/messages/count_tokens` (Claude Code asks it to size its context): the request's input tokens, as
 * `{input_tokens}`. The request is translated as `/v1/messages` translates it; the upstream counts it when it can
 * (vLLM's `POST /tokenize` with the messages and tools: the model's own chat template and tokenizer), otherwise the
 * gateway estimates (a token per four characters of text, a flat figure per image). `x-toolbus-token-count` says
 * which: `upstream` or `estimate`.
 */
export async function countMessageTokens(options: {
  context: GatewayContext;
  bytes: Buffer;
  response: ServerResponse;
}): Promise<void> {
  const { context, response } = options;
  let chat: Record<string, unknown>;
  try {
    const body: unknown = JSON.parse(options.bytes.toString('utf8'));
    if (!isPlainObject(body)) throw new MessagesRequestError('The request body must be a JSON object.');
    // A count takes no max_tokens; the translation wants one.
    chat = messagesToChatCompletions({ ...body, max_tokens: 1 });
  } catch (error) {
    const message =
      error instanceof MessagesRequestError ? error.message : 'The request body is not valid JSON.';
    sendError(response, { dialect: 'anthropic', status: 400, message });
    return;
  }
  chat.model = (await resolveModel(context, chat.model as string)).served;
  const upstream = upstreamFor(context.upstreams, chat.model as string);
  const counted = await upstreamCount(context, upstream, chat);
  const source = counted === undefined ? 'estimate' : 'upstream';
  const text = JSON.stringify({ input_tokens: counted ?? estimateTokens(chat) });
  response.writeHead(200, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    [TOKEN_COUNT_HEADER]: source,
  });
  response.end(text);
  context.log({ event: 'count-tokens', upstream: upstream.name, model: chat.model as string, source });
}

// vLLM serves `/tokenize` beside `/v1`, at the server's root, and counts a chat request with its template.
async function upstreamCount(
  context: GatewayContext,
  upstream: ResolvedUpstream,
  chat: Record<string, unknown>,
): Promise<number | undefined> {
  if (withoutTokenize.has(upstream)) return undefined;
  const root = { ...upstream.target, basePath: serverRoot(upstream.target.basePath) };
  const body = { model: chat.model, messages: chat.messages, tools: chat.tools, add_generation_prompt: true };
  try {
    const answer = await sendUpstream({
      upstream: { ...upstream, target: root },
      path: '/tokenize',
      method: 'POST',
      body: Buffer.from(JSON.stringify(body)),
      signal: AbortSignal.timeout(5_000),
      timeoutMs: 5_000,
    });
    const bytes = await readUpstreamBody(answer, 16 * 1024 * 1024);
    const status = answer.statusCode ?? 500;
    if (status === 404 || status === 405) withoutTokenize.add(upstream);
    if (status >= 300) return undefined;
    const parsed: unknown = JSON.parse(bytes.toString('utf8'));
    if (!isPlainObject(parsed)) return undefined;
    if (typeof parsed.count === 'number') return parsed.count;
    return Array.isArray(parsed.tokens) ? parsed.tokens.length : undefined;
  } catch (error) {
    context.log({
      event: 'tokenize-unavailable',
      upstream: upstream.name,
      reason: describeUpstreamFailure(error),
    });
    return undefined;
  }
}

/** A rough input count: a token per four characters of every text and tool definition, a flat figure per image. */
export function estimateTokens(chat: Record<string, unknown>): number {
  let characters = 0;
  let images = 0;
  const messages = Array.isArray(chat.messages) ? chat.messages.filter(isPlainObject) : [];
  for (const message of messages) {
    if (typeof message.content === 'string') characters += message.content.length;
    else if (Array.isArray(message.content)) {
      for (const part of message.content.filter(isPlainObject)) {
        if (part.type === 'image_url') images += 1;
        else if (typeof part.text === 'string') characters += part.text.length;
      }
    }
    if (Array.isArray(message.tool_calls)) characters += JSON.stringify(message.tool_calls).length;
  }
  if (Array.isArray(chat.tools)) characters += JSON.stringify(chat.tools).length;
  return roughTokenCount(characters) + images * IMAGE_TOKENS;
}

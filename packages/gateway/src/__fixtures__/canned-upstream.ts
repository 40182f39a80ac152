// A model server over real HTTP on loopback that writes exactly the wire a test gives it: the shapes the scripted
// model server does not write (several choices, usage with the finish, vLLM's `stop_reason`, an error event, a
// stream that breaks off, `/tokenize`), as the servers the gateway fronts write them.
import type { ServerResponse } from 'node:http';
import { type LoopbackHttpServer, startLoopbackHttpServer } from '@toolbus/core/testing';
import { omitUndefined } from '@toolbus/spec';

/** What the upstream answers to one request. */
export type CannedAnswer =
  | { readonly status: number; readonly json: unknown }
  /** A body written as it is (an HTML page, plain text, nothing), with its content type if any. */
  | { readonly status: number; readonly text: string; readonly contentType?: string }
  /**
   * A stream: each event's `data` (objects are serialised), then `[DONE]`, or a broken connection (`drop`), or
   * nothing more with the connection left open (`hold`: a model still writing).
   */
  | { readonly events: readonly (string | Record<string, unknown>)[]; readonly drop?: boolean; readonly hold?: boolean };

/** A running canned upstream: `baseUrl` ends in `/v1`; `bodies` holds each request's path and parsed body. */
export interface CannedUpstream {
  readonly baseUrl: string;
  readonly bodies: { readonly path: string; readonly body: Record<string, unknown> }[];
  /** Answers whose connection closed before the upstream ended them (a cancelled request). */
  readonly cancelled: () => number;
  close(): Promise<void>;
}

/** Starts an upstream that answers each request with `answer(path, body)`. */
export async function startCannedUpstream(
  answer: (path: string, body: Record<string, unknown>) => CannedAnswer,
): Promise<CannedUpstream> {
  const bodies: { path: string; body: Record<string, unknown> }[] = [];
  let cancelled = 0;
  const server: LoopbackHttpServer = await startLoopbackHttpServer((request, response) => {
    const body = request.body === '' ? {} : (JSON.parse(request.body) as Record<string, unknown>);
    bodies.push({ path: request.url, body });
    response.once('close', () => {
      if (!response.writableEnded) cancelled += 1;
    });
    write(response, answer(request.url, body));
  });
  return { baseUrl: `${server.origin}/v1`, bodies, cancelled: () => cancelled, close: () => server.close() };
}

function write(response: ServerResponse, answer: CannedAnswer): void {
  if ('json' in answer) {
    const text = JSON.stringify(answer.json);
    response.writeHead(answer.status, { 'content-type': 'application/json' });
    response.end(text);
    return;
  }
  if ('text' in answer) {
    response.writeHead(answer.status, omitUndefined({ 'content-type': answer.contentType }));
    response.end(answer.text);
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const text = answer.events
    .map((event) => `data: ${typeof event === 'string' ? event : JSON.stringify(event)}\n\n`)
    .join('');
  if (answer.hold === true) {
    response.write(text);
    return;
  }
  if (answer.drop === true) {
    response.write(text, () => response.destroy());
    return;
  }
  response.end(`${text}data: [DONE]\n\n`);
}

/** One `chat.completion.chunk` with one choice. */
export function chunk(
  delta: Record<string, unknown>,
  options: { index?: number; finish?: string | null; extra?: Record<string, unknown>; choice?: Record<string, unknown> } = {},
): Record<string, unknown> {
  return {
    id: 'chatcmpl-canned',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [
      { index: options.index ?? 0, delta, logprobs: null, finish_reason: options.finish ?? null, ...options.choice },
    ],
    ...options.extra,
  };
}

/** One non-streamed `chat.completion` with one choice, its message an assistant's. */
export function completion(
  message: Record<string, unknown>,
  options: { finish?: string; extra?: Record<string, unknown> } = {},
): Record<string, unknown> {
  return {
    id: 'chatcmpl-canned',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [
      { index: 0, message: { role: 'assistant', ...message }, logprobs: null, finish_reason: options.finish ?? 'stop' },
    ],
    ...options.extra,
  };
}

/** The data events of an SSE body, parsed (`[DONE]` kept as the string). */
export function sseEvents(text: string): { readonly event: string | undefined; readonly data: unknown }[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? '';
      return { event, data: data === '[DONE]' ? data : JSON.parse(data) };
    });
}

import { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import {
  chatParams,
  sendMessageBody,
  startedTurnSchema,
  stopTurnSchema,
  streamQuery,
  turnParams,
} from '@toolbus/api-schema';
import { omitUndefined } from '@toolbus/spec';
import type { Context } from 'hono';
import { z } from 'zod';
import type { RouteRegistry } from '../http/route-registry.ts';
import { parseInput } from '../http/route-registry.ts';
import { chatAccess, chatErrorResponses as errorResponses } from './chat-route-responses.ts';
import type { ChatService } from './chat-service.ts';
import {
  type PacketStreamFormat,
  packetStreamResponse,
  writePacketStream,
} from './packet-stream-response.ts';
import type { TurnRunner } from './turn-runner.ts';

const packetStream = {
  description: 'The packets: SSE (event id = sequence) or NDJSON (one packet per line)',
  contentType: 'text/event-stream',
};

/** Registers a chat's turn routes: send a message (start a turn), stream a turn's packets, stop a turn. */
export function registerTurnRoutes(options: {
  readonly registry: RouteRegistry;
  readonly chats: ChatService;
  readonly runner: TurnRunner;
  readonly heartbeatMs?: number;
}): void {
  const { registry, chats, runner } = options;
  const stream = (
    context: Context,
    chatId: string,
    turn: number,
    after: number,
    format: PacketStreamFormat,
  ): Response => {
    const settings = {
      format,
      open: (signal: AbortSignal) => runner.follow(chatId, turn, after, signal),
      headers: { 'x-toolbus-chat-id': chatId, 'x-toolbus-turn': String(turn) },
      ...omitUndefined({ heartbeatMs: options.heartbeatMs }),
    };
    // Served by @hono/node-server: the packets are written to the Node response directly (the same bytes, without
    // a web stream per connection and a promise per packet); any other host gets the web Response.
    const outgoing = (context.env as { outgoing?: unknown } | undefined)?.outgoing;
    if (!(outgoing instanceof ServerResponse)) return packetStreamResponse(settings);
    writePacketStream({ ...settings, outgoing, after, live: runner.live(chatId, turn) });
    return RESPONSE_ALREADY_SENT;
  };

  registry.add(
    {
      method: 'post',
      path: '/v1/chats/{chatId}/messages',
      operationId: 'sendMessage',
      summary:
        'Send a message: starts a turn that runs on even if the connection closes, and streams its packets ' +
        '(stream=none answers 202 with the stream URL instead)',
      tag: 'chats',
      access: chatAccess,
      params: chatParams,
      query: z.object({
        stream: z
          .enum(['sse', 'ndjson', 'none'])
          .optional()
          .describe('Default: from the Accept header, else SSE'),
      }),
      body: sendMessageBody,
      responses: {
        200: packetStream,
        202: { description: 'The turn started', schema: startedTurnSchema },
        ...errorResponses,
        409: { description: 'A turn of this chat is still running' },
        429: { description: 'Over a rate or concurrency limit' },
      },
    },
    async ({ principal, params, query, body, context }) => {
      const mode = query.stream ?? formatFromAccept(context);
      const live = await chats.send(principal, params.chatId, body);
      const streamUrl = `/v1/chats/${encodeURIComponent(params.chatId)}/turns/${live.index}/stream`;
      if (mode === 'none') {
        context.header('location', streamUrl);
        return context.json({ chatId: params.chatId, turn: live.index, streamUrl }, 202);
      }
      return stream(context, params.chatId, live.index, 0, mode);
    },
  );
  registry.add(
    {
      method: 'get',
      path: '/v1/chats/{chatId}/turns/{turn}/stream',
      operationId: 'streamTurn',
      summary:
        "A turn's packets after the cursor (Last-Event-ID header or ?after=), then live until the turn ends: " +
        'a reconnect loses nothing and repeats nothing',
      tag: 'chats',
      access: chatAccess,
      params: turnParams,
      query: streamQuery,
      responses: {
        200: packetStream,
        204: { description: 'Last-Event-ID is the last packet of an ended turn: nothing more will come' },
        ...errorResponses,
      },
    },
    async ({ principal, params, query, context }) => {
      await chats.requireTurn(principal, params.chatId, params.turn);
      const after = query.after ?? lastEventId(context) ?? 0;
      const cursorField = query.after === undefined ? 'header.last-event-id' : 'query.after';
      await runner.checkCursor(params.chatId, params.turn, after, cursorField);
      // An EventSource reconnects after every stream that ends, with the last id it saw: at the end of an ended
      // turn, 204 tells it nothing more will come (it stops), instead of an empty stream it would reopen forever.
      if (query.after === undefined && after > 0 && (await runner.endedAt(params.chatId, params.turn, after)))
        return context.body(null, 204);
      const format = query.format ?? formatFromAccept(context);
      return stream(context, params.chatId, params.turn, after, format === 'none' ? 'sse' : format);
    },
  );
  registry.add(
    {
      method: 'post',
      path: '/v1/chats/{chatId}/turns/{turn}/stop',
      operationId: 'stopTurn',
      summary: 'Stop a running turn (its model stream and tools are aborted; the partial answer is kept)',
      tag: 'chats',
      access: chatAccess,
      params: turnParams,
      responses: {
        200: { description: 'Whether a running turn was stopped', schema: stopTurnSchema },
        ...errorResponses,
      },
    },
    async ({ principal, params, context }) =>
      context.json({ stopped: await chats.stop(principal, params.chatId, params.turn) }),
  );
}

/** The stream format an `Accept` header asks for: NDJSON, SSE, or none (`application/json`); default SSE. */
function formatFromAccept(context: Context): PacketStreamFormat | 'none' {
  const accept = context.req.header('accept') ?? '';
  if (accept.includes('application/x-ndjson')) return 'ndjson';
  if (accept.includes('text/event-stream')) return 'sse';
  if (accept.includes('application/json')) return 'none';
  return 'sse';
}

function lastEventId(context: Context): number | undefined {
  const header = context.req.header('last-event-id');
  if (header === undefined) return undefined;
  return parseInput(
    z
      .string()
      .regex(/^\d{1,12}$/, 'a packet sequence (a whole number ≥ 0)')
      .transform(Number),
    header.trim(),
    'header.last-event-id',
  ) as number;
}

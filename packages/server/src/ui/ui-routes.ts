import { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { sendMessageBody } from '@toolbus/api-schema';
import type { Context } from 'hono';
import { z } from 'zod';
import type { ChatService } from '../chats/chat-service.ts';
import type { TurnRunner } from '../chats/turn-runner.ts';
import type { RouteRegistry } from '../http/route-registry.ts';
import { ServerError } from '../http/server-error.ts';
import { toUiMessageChunks } from './ui-message-chunks.ts';
import { uiMessageStreamResponse } from './ui-message-stream-response.ts';
import { writeUiMessageStream } from './write-ui-message-stream.ts';

/** The path `useChat`'s transport posts to (`new DefaultChatTransport({ api })`), with the toolbus chat as `id`. */
export const UI_CHAT_PATH = '/v1/ui/chat';

const uiMessage = z.looseObject({
  role: z.enum(['system', 'user', 'assistant']),
  parts: z.array(z.looseObject({ type: z.string() })).max(1000),
});
/** The turn options a `useChat` request may carry (in its `body`), as `POST /v1/chats/{id}/messages` takes them. */
const uiTurnOptions = sendMessageBody.omit({ content: true });
// Loose: an app's `useChat` may add fields of its own to every request (`sendMessage(…, { body })`); they are
// ignored, as a server built with the AI SDK ignores what it does not read.
const uiChatBody = uiTurnOptions
  .extend({
    id: z.string().min(1).max(100).describe('The toolbus chat id (useChat({ id }))'),
    messages: z
      .array(uiMessage)
      .min(1)
      .max(10_000)
      .describe("useChat's messages; the last user message is sent"),
    trigger: z.enum(['submit-message', 'regenerate-message']).optional(),
    messageId: z.string().max(200).optional(),
  })
  .loose();
const uiStreamDescription = {
  description: 'The AI SDK UI message stream (v1, header x-vercel-ai-ui-message-stream)',
  contentType: 'text/event-stream',
};
const chat = { kind: 'user', scope: 'chat' } as const;

/**
 * Registers the AI SDK UI message stream endpoint, so an app using `useChat` works against toolbus unchanged: its
 * default transport posts here, and its `resume` reconnects with `GET …/{chatId}/stream`. The history lives in
 * toolbus: only the last user message of the posted list is taken.
 */
export function registerUiRoutes(registry: RouteRegistry, chats: ChatService, runner: TurnRunner): void {
  const stream = (context: Context, chatId: string, turn: number): Response => {
    const messageId = `${chatId}:${turn}`;
    const settings = {
      open: (signal: AbortSignal) => toUiMessageChunks(runner.follow(chatId, turn, 0, signal), messageId),
      headers: { 'x-toolbus-chat-id': chatId, 'x-toolbus-turn': String(turn) },
    };
    // Served by @hono/node-server: written to the Node response directly; any other host gets the web Response.
    const outgoing = (context.env as { outgoing?: unknown } | undefined)?.outgoing;
    if (!(outgoing instanceof ServerResponse)) return uiMessageStreamResponse(settings);
    const live = runner.live(chatId, turn);
    writeUiMessageStream({
      ...settings,
      outgoing,
      live: live && { turn: live, messageId },
    });
    return RESPONSE_ALREADY_SENT;
  };
  registry.add(
    {
      method: 'post',
      path: UI_CHAT_PATH,
      operationId: 'sendUiMessage',
      summary: 'useChat: send the last user message and stream the answer as UI message chunks',
      tag: 'ui',
      access: chat,
      body: uiChatBody,
      responses: { 200: uiStreamDescription, 400: { description: 'Invalid input' } },
    },
    async ({ principal, body, context }) => {
      const last = [...body.messages].reverse().find((message) => message.role === 'user');
      const content = (last?.parts ?? [])
        .flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : []))
        .join('\n')
        .trim();
      if (!content) {
        throw new ServerError({
          code: 'invalid_request',
          field: 'body.messages',
          message: 'body.messages: the last user message has no text part.',
        });
      }
      const { id, messages: _messages, trigger: _trigger, messageId: _messageId, ...rest } = body;
      // The chat is named in the body here: a chat that is not the caller's is reported as body.id.
      await chats.require(principal, id, 'body.id');
      const live = await chats.send(principal, id, { ...uiTurnOptions.parse(rest), content });
      return stream(context, id, live.index);
    },
  );
  registry.add(
    {
      method: 'get',
      path: `${UI_CHAT_PATH}/{chatId}/stream`,
      operationId: 'resumeUiStream',
      summary: "useChat's resume: the running turn's UI message stream from its start (204 when none runs)",
      tag: 'ui',
      access: chat,
      params: z.object({ chatId: z.string().min(1).max(100) }),
      responses: { 200: uiStreamDescription, 204: { description: 'No turn is running' } },
    },
    async ({ principal, params, context }) => {
      await chats.require(principal, params.chatId);
      const turns = await chats.turnsOf(principal, params.chatId);
      const running = turns.find(
        (turn) => turn.status === 'running' && runner.live(params.chatId, turn.index),
      );
      if (!running) return context.body(null, 204);
      return stream(context, params.chatId, running.index);
    },
  );
}

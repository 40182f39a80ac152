import {
  chatDetailSchema,
  chatListSchema,
  chatParams,
  chatSchema,
  createChatBody,
  renameChatBody,
} from '@toolbus/api-schema';
import { omitUndefined } from '@toolbus/spec';
import type { z } from 'zod';
import type { RouteRegistry } from '../http/route-registry.ts';
import { chatAccess, chatErrorResponses as errorResponses } from './chat-route-responses.ts';
import type { ChatService } from './chat-service.ts';
import { registerTurnRoutes } from './turn-routes.ts';
import type { TurnRunner } from './turn-runner.ts';

/** Registers the chat routes: create, list, read, rename, delete, and the turns' send, stream and stop. */
export function registerChatRoutes(
  registry: RouteRegistry,
  chats: ChatService,
  runner: TurnRunner,
  options: { readonly heartbeatMs?: number | undefined },
): void {
  registerChatResourceRoutes(registry, chats);
  registerTurnRoutes({ registry, chats, runner, ...omitUndefined({ heartbeatMs: options.heartbeatMs }) });
}

/** The chat as a resource: create, list, read, rename and delete. */
function registerChatResourceRoutes(registry: RouteRegistry, chats: ChatService): void {
  registry.add(
    {
      method: 'post',
      path: '/v1/chats',
      operationId: 'createChat',
      summary: 'Create a chat',
      tag: 'chats',
      access: chatAccess,
      body: createChatBody,
      responses: { 201: { description: 'The chat', schema: chatSchema }, 400: errorResponses[400] },
    },
    async ({ principal, body, context }) =>
      context.json(publicChat(await chats.create(principal, body)), 201),
  );
  registry.add(
    {
      method: 'get',
      path: '/v1/chats',
      operationId: 'listChats',
      summary: "List the caller's chats, most recent first",
      tag: 'chats',
      access: chatAccess,
      responses: { 200: { description: 'The chats', schema: chatListSchema } },
    },
    async ({ principal, context }) => context.json({ chats: (await chats.list(principal)).map(publicChat) }),
  );
  registry.add(
    {
      method: 'get',
      path: '/v1/chats/{chatId}',
      operationId: 'getChat',
      summary: 'Read a chat: its messages (tool calls, results, files) and turns (status, citations)',
      tag: 'chats',
      access: chatAccess,
      params: chatParams,
      responses: { 200: { description: 'The chat', schema: chatDetailSchema }, 404: errorResponses[404] },
    },
    async ({ principal, params, context }) => {
      const detail = await chats.read(principal, params.chatId);
      return context.json({
        ...publicChat(detail),
        messages: detail.messages.map(({ chatId: _chatId, ...message }) => message),
        turns: detail.turns.map(({ chatId: _chatId, input: _input, ...turn }) => turn),
      });
    },
  );
  registry.add(
    {
      method: 'patch',
      path: '/v1/chats/{chatId}',
      operationId: 'renameChat',
      summary: 'Rename a chat',
      tag: 'chats',
      access: chatAccess,
      params: chatParams,
      body: renameChatBody,
      responses: { 200: { description: 'The chat', schema: chatSchema }, 404: errorResponses[404] },
    },
    async ({ principal, params, body, context }) =>
      context.json(publicChat(await chats.rename(principal, params.chatId, body.title))),
  );
  registry.add(
    {
      method: 'delete',
      path: '/v1/chats/{chatId}',
      operationId: 'deleteChat',
      summary: 'Delete a chat with its history (a running turn is stopped first)',
      tag: 'chats',
      access: chatAccess,
      params: chatParams,
      responses: { 204: { description: 'Deleted' }, 404: errorResponses[404] },
    },
    async ({ principal, params, context }) => {
      await chats.delete(principal, params.chatId);
      return context.body(null, 204);
    },
  );
}

/**
 * A chat as the API shows it: the schema is the one list of public fields, and parsing strips the store's own
 * (the owner, the organisation's internals), so a field added to the store is never shown by accident.
 */
function publicChat(chat: z.input<typeof chatSchema>): z.output<typeof chatSchema> {
  return chatSchema.parse(chat);
}

import { elicitationAnswerBody, elicitationParams, elicitationResolutionSchema } from '@toolbus/api-schema';
import type { Principal } from '../http/principal.ts';
import type { RouteRegistry } from '../http/route-registry.ts';
import type { ElicitationHub } from './elicitation-hub.ts';

/** Registers `POST /v1/chats/{chatId}/elicitations/{elicitationId}`: the chat owner's answer to an MCP server. */
export function registerElicitationRoutes(
  registry: RouteRegistry,
  deps: {
    readonly elicitations: ElicitationHub;
    /** Refuses (`not_found`) a chat the principal does not own. */
    readonly requireChat: (principal: Principal, chatId: string) => Promise<unknown>;
  },
): void {
  registry.add(
    {
      method: 'post',
      path: '/v1/chats/{chatId}/elicitations/{elicitationId}',
      operationId: 'answerElicitation',
      summary: "Answer an MCP server's question to the user (an elicitation-request packet)",
      tag: 'chats',
      access: { kind: 'user', scope: 'chat' },
      params: elicitationParams,
      body: elicitationAnswerBody,
      responses: {
        200: { description: 'Answered', schema: elicitationResolutionSchema },
        400: { description: "The content does not fit the server's form; the message names each field" },
        404: { description: 'No chat of yours, or no question with this id waiting in it' },
      },
    },
    async ({ principal, params, body, context }) => {
      await deps.requireChat(principal, params.chatId);
      const resolution = await deps.elicitations.answer(
        principal.user.id,
        params.chatId,
        params.elicitationId,
        body,
      );
      return context.json({ elicitationId: params.elicitationId, resolution });
    },
  );
}

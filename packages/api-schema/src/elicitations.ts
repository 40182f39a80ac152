import { z } from 'zod';

/** Path parameters of answering one MCP elicitation of a chat. */
export const elicitationParams = z.object({
  chatId: z.string().min(1).max(100).describe('The chat id'),
  elicitationId: z.string().min(1).max(100).describe('The id of the elicitation-request packet'),
});

const fieldValue = z.union([
  z.string().max(10_000),
  z.number(),
  z.boolean(),
  z.array(z.string().max(1_000)).max(100),
]);

/**
 * The chat owner's answer to an MCP server's question (an `elicitation-request` packet): `accept` with the form's
 * field values (form mode; checked against the requested schema, whose defaults fill fields left out) or nothing
 * (URL mode: the user opened the page and consents), `decline`, or `cancel`.
 */
export const elicitationAnswerBody = z.discriminatedUnion('action', [
  z.object({
    action: z.literal('accept'),
    content: z.record(z.string().max(200), fieldValue).optional().describe('Form mode: the field values'),
  }),
  z.object({ action: z.literal('decline') }),
  z.object({ action: z.literal('cancel') }),
]);

/** An answered elicitation. */
export const elicitationResolutionSchema = z.object({
  elicitationId: z.string(),
  resolution: z.enum(['accept', 'decline', 'cancel']),
});

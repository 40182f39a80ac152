import { z } from 'zod';

/** Path parameters of routes under a chat. */
export const chatParams = z.object({ chatId: z.string().min(1).max(100).describe('The chat id') });

/** Path parameters of routes under one turn. */
export const turnParams = chatParams.extend({
  // Digits only: `Number()` would also take " ", "1e3" and "0x1" as turns 0, 1000 and 1.
  turn: z
    .string()
    .regex(/^\d{1,7}$/, 'a turn index (a whole number ≥ 0)')
    .transform(Number)
    .pipe(z.number().max(1_000_000))
    .describe('The turn index (0, 1, 2, …)'),
});

/** A chat as listed. */
export const chatSchema = z.object({
  id: z.string(),
  title: z.string(),
  personaId: z.string().nullable(),
  organizationId: z.string().describe('The organisation the chat belongs to'),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** The caller's chats, most recent first. */
export const chatListSchema = z.object({ chats: z.array(chatSchema) });

/** A file attached to a message, by reference. */
export const chatFileSchema = z.object({
  id: z.string(),
  name: z.string(),
  mediaType: z.string(),
  sizeBytes: z.number().optional(),
});

/** One message of a chat's history. */
export const storedMessageSchema = z.object({
  id: z.string(),
  turn: z.number().nullable(),
  position: z.number(),
  message: z.union([
    z.object({ role: z.literal('system'), content: z.string() }),
    z.object({ role: z.literal('user'), content: z.string(), files: z.array(chatFileSchema).optional() }),
    z.object({
      role: z.literal('assistant'),
      content: z.string(),
      reasoning: z.string().optional(),
      toolCalls: z
        .array(z.object({ id: z.string(), name: z.string(), arguments: z.record(z.string(), z.unknown()) }))
        .optional(),
    }),
    z.object({ role: z.literal('tool'), toolCallId: z.string(), toolName: z.string(), content: z.string() }),
  ]),
  createdAt: z.string(),
});

/** A document a turn cited, with its number. */
export const citedDocumentSchema = z.object({
  citationNumber: z.number(),
  id: z.string(),
  title: z.string(),
  link: z.string().optional(),
  blurb: z.string(),
  sourceType: z.string(),
  score: z.number().optional(),
  updatedAt: z.string().optional(),
  isInternet: z.boolean().optional().describe('Found on the web, not in an index of your own'),
  metadata: z.record(z.string(), z.string()).optional(),
});

/** One turn of a chat, with the documents its answer cited. */
export const turnSchema = z.object({
  index: z.number(),
  kind: z.enum(['chat', 'research']),
  status: z.enum(['running', 'completed', 'stopped', 'failed', 'interrupted']),
  endReason: z.string().nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  citations: z.array(citedDocumentSchema),
});

/** A chat with its whole history and turns. */
export const chatDetailSchema = chatSchema.extend({
  messages: z.array(storedMessageSchema),
  turns: z.array(turnSchema),
});

/** Creating a chat. */
export const createChatBody = z.object({
  title: z.string().trim().min(1).max(200).optional(),
  personaId: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe('The persona of the chat (default: the default persona)'),
});

/** Renaming a chat. */
export const renameChatBody = z.object({ title: z.string().trim().min(1).max(200) });

/** The largest message a user may send, in characters. */
export const MAX_MESSAGE_CHARACTERS = 100_000;

/** Starting a turn. */
export const sendMessageBody = z.object({
  content: z.string().min(1).max(MAX_MESSAGE_CHARACTERS).describe("The user's message"),
  personaId: z.string().min(1).max(100).optional().describe("This turn's persona (default: the chat's)"),
  fileIds: z.array(z.string().min(1).max(100)).max(20).optional().describe('Uploaded files to attach'),
  tools: z
    .array(z.string().min(1).max(128))
    .max(100)
    .optional()
    .describe('Only these tools (by name) of the persona this turn'),
  model: z.string().min(1).max(300).optional().describe('A model the server allows, e.g. openai:gpt-4.1'),
  research: z.boolean().optional().describe('Run Deep Research instead of a chat turn'),
  maxCycles: z
    .number()
    .int()
    .min(1)
    .max(50)
    .optional()
    .describe('Model steps of a chat turn; orchestrator cycles of a research turn'),
});

/** How a started turn is answered when no stream is asked for. */
export const startedTurnSchema = z.object({
  chatId: z.string(),
  turn: z.number(),
  streamUrl: z.string(),
});

/** The resume cursor of a stream: the last sequence received. */
export const streamQuery = z.object({
  after: z
    .string()
    .regex(/^\d{1,12}$/, 'a packet sequence (a whole number ≥ 0)')
    .transform(Number)
    .optional()
    .describe('Replay packets after this sequence (instead of the Last-Event-ID header)'),
  format: z.enum(['sse', 'ndjson']).optional().describe('Default: from the Accept header, else SSE'),
});

/** The answer of the stop route. */
export const stopTurnSchema = z.object({ stopped: z.boolean() });

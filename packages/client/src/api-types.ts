import type {
  apiKeySchema,
  chatDetailSchema,
  chatFileSchema,
  chatSchema,
  fileSchema,
  meSchema,
  sendMessageBody,
  sessionSchema,
  sessionStateSchema,
  startedTurnSchema,
  storedMessageSchema,
  turnSchema,
} from '@toolbus/api-schema';
import type { Packet } from '@toolbus/spec';
import type { z } from 'zod';

/**
 * The wire shapes of `toolbus serve`'s JSON answers, inferred from the schemas the server validates and documents
 * with (`@toolbus/api-schema`): a change there changes these types, so the client cannot drift from the server.
 */

/** A wire shape as the client hands it out: read-only all the way down, as data received should be. */
type Received<T> = T extends readonly (infer Item)[]
  ? readonly Received<Item>[]
  : T extends object
    ? { readonly [Key in keyof T]: Received<T[Key]> }
    : T;

/** The shape a schema of `@toolbus/api-schema` answers, as the client hands it out (read-only). */
export type WireShape<Schema extends z.ZodType> = Received<z.output<Schema>>;

/** A packet as the stream sends it: the packet with its sequence in the turn (the SSE event id). */
export type WirePacket = Packet & { readonly sequence: number };

/** A chat as listed. */
export type ChatSummary = Received<z.output<typeof chatSchema>>;

/** A file attached to a message. */
export type FileView = Received<z.output<typeof chatFileSchema>>;

/** A file just uploaded: also what it hashes to and when it was stored. */
export type UploadedFileView = Received<z.output<typeof fileSchema>>;

/** One message of a chat's history. */
export type StoredMessageView = Received<z.output<typeof storedMessageSchema>>;

/** One turn of a chat. */
export type TurnView = Received<z.output<typeof turnSchema>>;

/** Where a turn is. */
export type TurnStatus = TurnView['status'];

/** A chat with its history and turns. */
export type ChatDetailView = Received<z.output<typeof chatDetailSchema>>;

/** What sending a message takes. */
export type SendMessageRequest = Received<z.input<typeof sendMessageBody>>;

/** A turn that started. */
export type StartedTurn = Received<z.output<typeof startedTurnSchema>>;

/** The caller. */
export type MeView = Received<z.output<typeof meSchema>>;

/** A signed-in browser session. */
export type SessionView = Received<z.output<typeof sessionSchema>>;

/** Whether the caller is signed in (`GET /v1/session`). */
export type SessionStateView = Received<z.output<typeof sessionStateSchema>>;

/** An API key as its owner sees it (`GET /v1/keys`): never the key itself, which is shown once at creation. */
export type ApiKeyView = Received<z.output<typeof apiKeySchema>>;

import type { CitedDocument, Packet } from '@toolbus/spec';

/**
 * The wire shapes of `toolbus serve`'s JSON answers, as its OpenAPI document (`/openapi.json`) describes them.
 * The server owns them (as zod schemas); these are the browser-safe reading of them.
 */

/** A packet as the stream sends it: the packet with its sequence in the turn (the SSE event id). */
export type WirePacket = Packet & { readonly sequence: number };

/** A chat as listed. */
export interface ChatSummary {
  readonly id: string;
  readonly title: string;
  readonly personaId: string | null;
  /** The organisation the chat belongs to. */
  readonly organizationId?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** A file attached to a message or uploaded. */
export interface FileView {
  readonly id: string;
  readonly name: string;
  readonly mediaType: string;
  readonly sizeBytes?: number;
}

/** One message of a chat's history. */
export interface StoredMessageView {
  readonly id: string;
  readonly turn: number | null;
  readonly position: number;
  readonly message:
    | { readonly role: 'system'; readonly content: string }
    | { readonly role: 'user'; readonly content: string; readonly files?: readonly FileView[] }
    | {
        readonly role: 'assistant';
        readonly content: string;
        readonly reasoning?: string;
        readonly toolCalls?: readonly { id: string; name: string; arguments: Record<string, unknown> }[];
      }
    | {
        readonly role: 'tool';
        readonly toolCallId: string;
        readonly toolName: string;
        readonly content: string;
      };
  readonly createdAt: string;
}

/** Where a turn is. */
export type TurnStatus = 'running' | 'completed' | 'stopped' | 'failed' | 'interrupted';

/** One turn of a chat. */
export interface TurnView {
  readonly index: number;
  readonly kind: 'chat' | 'research';
  readonly status: TurnStatus;
  readonly endReason: string | null;
  readonly startedAt: string;
  readonly endedAt: string | null;
  readonly citations: readonly Pick<
    CitedDocument,
    'citationNumber' | 'id' | 'title' | 'link' | 'blurb' | 'sourceType'
  >[];
}

/** A chat with its history and turns. */
export interface ChatDetailView extends ChatSummary {
  readonly messages: readonly StoredMessageView[];
  readonly turns: readonly TurnView[];
}

/** What sending a message takes. */
export interface SendMessageRequest {
  readonly content: string;
  readonly personaId?: string;
  readonly fileIds?: readonly string[];
  readonly tools?: readonly string[];
  readonly model?: string;
  readonly research?: boolean;
  readonly maxCycles?: number;
}

/** A turn that started. */
export interface StartedTurn {
  readonly chatId: string;
  readonly turn: number;
  readonly streamUrl: string;
}

/** The caller. */
export interface MeView {
  readonly id: string;
  readonly email: string;
  readonly name: string | null;
  readonly role: 'admin' | 'user';
  readonly createdAt: string;
  readonly scopes: readonly string[];
  /** The organisation the request acted in, and the caller's role there. */
  readonly organization?: { readonly id: string; readonly role: 'admin' | 'member' };
}

/** A signed-in browser session. */
export interface SessionView {
  readonly csrfToken: string;
  readonly expiresAt: string;
}

/** An API key as its owner sees it (`GET /v1/keys`): never the key itself, which is shown once at creation. */
export interface ApiKeyView {
  readonly id: string;
  /** The organisation the key acts in, and only there. */
  readonly organizationId: string;
  readonly name: string;
  readonly prefix: string;
  readonly scopes: readonly string[];
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
}

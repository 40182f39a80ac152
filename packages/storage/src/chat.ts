import type { ChatMessage } from '@toolbus/spec';
import type { Creating, StoredRow } from './sql/camel-columns.ts';
import type { StorageError } from './storage-error.ts';

/** One conversation, owned by one user (`activity` orders the user's chats: storage's own). */
export type Chat = Omit<StoredRow<'chats'>, 'activity'>;

/** What creating a chat takes; the title defaults to "New chat", the organisation to the default one. */
export type NewChat = Creating<Chat, 'userId', 'title' | 'personaId' | 'organizationId'>;

/** What kind of turn ran: an ordinary tool loop or a Deep Research run. */
export type ChatTurnKind = 'chat' | 'research';

/**
 * Where a turn is: `running` until it ends; `completed` with an answer; `stopped` by the user (its partial answer
 * kept); `failed` with an error; `interrupted` when the process died mid-turn and a later start closed it.
 */
export type ChatTurnStatus = 'running' | 'completed' | 'stopped' | 'failed' | 'interrupted';

/**
 * One turn of a chat: the user's message and everything the assistant did in answer to it. Its end token stays in
 * storage: it only tells a closer's retried end from another closer's.
 */
export type ChatTurnRecord = Omit<StoredRow<'chat_turns'>, 'turnIndex' | 'inputJson' | 'endToken'> & {
  /** 0, 1, 2, … in the order the turns were started. */
  readonly index: number;
  /** The messages the turn started with (the user's message), kept so an interrupted turn still has its question. */
  readonly input: readonly ChatMessage[];
};

/** A message of a chat's history, as stored: in order, tagged with the turn that wrote it. */
export type StoredChatMessage = Omit<StoredRow<'chat_messages'>, 'turnIndex' | 'messageJson'> & {
  /** The turn that wrote it; `null` for messages of a release that appended history outside turns. */
  readonly turn: number | null;
  readonly message: ChatMessage;
};

/** One packet of a turn's stream as persisted for replay; `sequence` starts at 1 and has no gaps. */
export interface StoredPacket {
  readonly sequence: number;
  readonly packet: unknown;
}

/** One turn of one chat, as the methods that read or write a turn name it. */
export interface ChatTurnKey {
  readonly chatId: string;
  readonly turn: number;
}

/** Packets to append to one turn's stream, as one of several in {@link ChatStore.appendPacketBatches}. */
export interface PacketBatch extends ChatTurnKey {
  readonly packets: readonly unknown[];
}

/**
 * What became of one {@link PacketBatch}: the sequence of its last packet, or the error that kept it out (its turn
 * does not exist); the other batches of the same call are written either way.
 */
export type AppendedPacketBatch =
  | { readonly ok: true; readonly last: number }
  | { readonly ok: false; readonly error: StorageError };

/** How a turn is closed: its status, the reason, and the history it adds, written in one transaction. */
export interface FinishChatTurn extends ChatTurnKey {
  readonly status: Exclude<ChatTurnStatus, 'running'>;
  readonly reason?: string;
  /** The messages the turn adds to the history (the user's message and the assistant's answer, tools included). */
  readonly messages?: readonly ChatMessage[];
  /**
   * Packets that close the turn's stream (a dead runner's open tool calls, its `stop`), stored after its last in the
   * same transaction as the end: when the end is refused (another closer ended it first), none is stored.
   */
  readonly packets?: readonly unknown[];
  /**
   * A token of this closer's own (random), the same on every try of one end: the turn keeps it, so a try whose end
   * was already committed (the reply to an earlier try lost with its connection) gets the ended turn back, not the
   * `conflict` another closer's end gets. Without one, any second end is a `conflict`.
   */
  readonly endToken?: string;
}

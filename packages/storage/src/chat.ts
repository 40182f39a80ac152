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

/** One turn of a chat: the user's message and everything the assistant did in answer (its end token is storage's). */
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

/** What became of one {@link PacketBatch}: the sequence of its last packet, or the error that kept it out. */
export type AppendedPacketBatch =
  | { readonly ok: true; readonly last: number }
  | { readonly ok: false; readonly error: StorageError };

/** How a turn is closed: its status, the reason, and the history it adds, written in one transaction. */
export interface FinishChatTurn extends ChatTurnKey {
  readonly status: Exclude<ChatTurnStatus, 'running'>;
  readonly reason?: string;
  /** The messages the turn adds to the history (the user's message and the assistant's answer, tools included). */
  readonly messages?: readonly ChatMessage[];
  /** Packets that close the turn's stream (a dead runner's open tool calls, its `stop`), stored only with its end. */
  readonly packets?: readonly unknown[];
  /**
   * A random token of this closer's, the same on every try of one end: a try whose end was already committed (the
   * reply lost with its connection) gets the ended turn back, not a `conflict`. Without one, a second end conflicts.
   */
  readonly endToken?: string;
}

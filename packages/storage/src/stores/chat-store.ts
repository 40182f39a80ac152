import type { ChatMessage } from '@toolbus/spec';
import { sql } from 'kysely';
import type { ChatTurnKind, ChatTurnRecord, ChatTurnStatus, StoredChatMessage } from '../chat.ts';
import { DEFAULT_ORGANIZATION_ID } from '../organization.ts';
import { checkChatTitle, defaultChatTitle } from '../rules/check-chat-title.ts';
import { checkPacketCursor, defaultPacketPageSize } from '../rules/check-packet-cursor.ts';
import type { StorageSchema } from '../sql/storage-schema.ts';
import {
  changed,
  compiledOnce,
  lockedRows,
  notFound,
  type StorageDb,
  type StoreContext,
  withConstraintErrors,
} from '../sql/store-context.ts';
import type { ChatStore } from '../storage.ts';
import { StorageError } from '../storage-error.ts';
import type { PacketStreams } from './packet-streams.ts';

// A literal, not a parameter: only then may SQLite's planner use the partial index of running turns (with a
// parameter it scans every turn of the chat: 78 µs against 4 µs per statement after 3,000 turns).
const runningStatus = sql.lit('running');

const chatColumns = [
  'id',
  'user_id as userId',
  'title',
  'persona_id as personaId',
  'organization_id as organizationId',
  'created_at as createdAt',
  'updated_at as updatedAt',
] as const;

/** Rows per multi-row insert of messages: 6 parameters each, far under either database's limit. */
const messagesPerInsert = 500;

/**
 * Chats, their turns and history, on either database; each turn's packets go to the database's own
 * {@link PacketStreams}. A turn's end and its history are one transaction. On PostgreSQL every write to a chat's
 * turns or history first locks the chat's row, so "one running turn per chat" and history positions hold however
 * many replicas write (a partial unique index holds the running-turn rule as well); SQLite's IMMEDIATE transactions
 * hold the whole database.
 */
export function createChatStore(context: StoreContext, streams: PacketStreams): ChatStore {
  const { db } = context;
  // "Most recently active" is a counter: timestamps tie within a millisecond.
  const nextActivity =
    context.dialect === 'postgres'
      ? sql<number>`nextval('chat_activity')`
      : sql<number>`(SELECT COALESCE(MAX(activity), 0) + 1 FROM chats)`;
  const lockChat = async (trx: StorageDb, chatId: string) => {
    const chat = await lockedRows(
      context,
      trx.selectFrom('chats').select('id').where('id', '=', chatId),
    ).executeTakeFirst();
    if (chat === undefined) throw notFound('Chat', chatId);
  };
  // Appends after the chat's last message; the caller holds the chat's lock.
  const append = async (
    trx: StorageDb,
    chatId: string,
    turn: number | null,
    messages: readonly ChatMessage[],
  ): Promise<StoredChatMessage[]> => {
    if (messages.length === 0) return [];
    const now = context.now();
    const { last } = await trx
      .selectFrom('chat_messages')
      .select((eb) => eb.fn.max('position').as('last'))
      .where('chat_id', '=', chatId)
      .executeTakeFirstOrThrow();
    const first = last === null ? 0 : Number(last) + 1;
    const stored = messages.map((message, index) => ({
      id: context.newId(),
      chatId,
      turn,
      position: first + index,
      message,
      createdAt: now,
    }));
    for (let start = 0; start < stored.length; start += messagesPerInsert) {
      const rows = stored.slice(start, start + messagesPerInsert).map((row) => ({
        id: row.id,
        chat_id: chatId,
        turn_index: turn,
        position: row.position,
        message_json: JSON.stringify(row.message),
        created_at: now,
      }));
      await trx.insertInto('chat_messages').values(rows).execute();
    }
    await trx
      .updateTable('chats')
      .set({ updated_at: now, activity: nextActivity })
      .where('id', '=', chatId)
      .execute();
    return stored;
  };
  // The queries of every turn (the chat, its history and turns read; its title; the chat list), compiled once.
  const chatById = compiledOnce((db: StorageDb, id: string) =>
    db.selectFrom('chats').select(chatColumns).where('id', '=', id),
  );
  const chatsOfUser = compiledOnce((db: StorageDb, userId: string) =>
    db.selectFrom('chats').select(chatColumns).where('user_id', '=', userId).orderBy('activity', 'desc'),
  );
  const renameChat = compiledOnce((db: StorageDb, id: string, title: string, now: string) =>
    db
      .updateTable('chats')
      .set({ title, updated_at: now, activity: nextActivity })
      .where('id', '=', id)
      .returning(chatColumns),
  );
  const messagesOf = compiledOnce((db: StorageDb, chatId: string) =>
    db.selectFrom('chat_messages').selectAll().where('chat_id', '=', chatId).orderBy('position'),
  );
  return {
    async create(chat) {
      const now = context.now();
      return withConstraintErrors('Creating a chat', () =>
        db
          .insertInto('chats')
          .values({
            id: context.newId(),
            user_id: chat.userId,
            title: checkChatTitle(chat.title ?? defaultChatTitle),
            persona_id: chat.personaId ?? null,
            created_at: now,
            updated_at: now,
            organization_id: chat.organizationId ?? DEFAULT_ORGANIZATION_ID,
            activity: nextActivity,
          })
          .returning(chatColumns)
          .executeTakeFirstOrThrow(),
      );
    },
    async get(id) {
      return (await chatById(db, id))[0];
    },
    async listForUser(userId) {
      return chatsOfUser(db, userId);
    },
    async rename(id, title) {
      const [renamed] = await renameChat(db, id, checkChatTitle(title), context.now());
      if (renamed === undefined) throw notFound('Chat', id);
      return renamed;
    },
    async delete(id) {
      return context.transaction((trx) =>
        streams.write(async () => {
          await streams.deleting(trx, id);
          return changed(await trx.deleteFrom('chats').where('id', '=', id).executeTakeFirst()) > 0;
        }),
      );
    },
    async appendMessages(chatId, messages) {
      return context.transaction(async (trx) => {
        await lockChat(trx, chatId);
        return append(trx, chatId, null, messages);
      });
    },
    async listMessages(chatId) {
      return (await messagesOf(db, chatId)).map(toStoredMessage);
    },
    ...turnMethods(context, streams, { lockChat, append }),
  };
}

const turns = (trx: StorageDb) => trx.selectFrom('chat_turns').selectAll();
const turnByIndex = compiledOnce((db: StorageDb, chatId: string, turn: number) =>
  turns(db).where('chat_id', '=', chatId).where('turn_index', '=', turn),
);
const turnsOfChat = compiledOnce((db: StorageDb, chatId: string) =>
  turns(db).where('chat_id', '=', chatId).orderBy('turn_index'),
);

async function readTurn(trx: StorageDb, chatId: string, turn: number): Promise<ChatTurnRecord | undefined> {
  const [row] = await turnByIndex(trx, chatId, turn);
  return row && toTurn(row);
}

/** What the turns share with the chat's history: its lock and appending to it. */
type ChatHistory = Readonly<{
  lockChat(trx: StorageDb, chatId: string): Promise<void>;
  append(
    trx: StorageDb,
    chatId: string,
    turn: number | null,
    messages: readonly ChatMessage[],
  ): Promise<StoredChatMessage[]>;
}>;

/** A chat's turns and their packets: the chat store's half that the database's packet streams take part in. */
function turnMethods(
  context: StoreContext,
  streams: PacketStreams,
  { lockChat, append }: ChatHistory,
): Pick<
  ChatStore,
  | 'startTurn'
  | 'finishTurn'
  | 'getTurn'
  | 'listTurns'
  | 'closeInterruptedTurns'
  | 'listRunningTurns'
  | 'appendPackets'
  | 'appendPacketBatches'
  | 'listPackets'
> {
  const { db } = context;
  return {
    async startTurn(options) {
      if (streams.turns) return streams.turns.startTurn(options);
      const { chatId, kind = 'chat', input = [] } = options;
      return context.transaction(async (trx) => {
        await lockChat(trx, chatId);
        const running = await trx
          .selectFrom('chat_turns')
          .select('turn_index')
          .where('chat_id', '=', chatId)
          .where('status', '=', runningStatus)
          .executeTakeFirst();
        if (running !== undefined) throw turnStillRunning(chatId, running.turn_index);
        // The next index read in the insert itself: one round trip less on PostgreSQL.
        const started = await withConstraintErrors('Starting a turn', () =>
          trx
            .insertInto('chat_turns')
            .values({
              chat_id: chatId,
              turn_index: sql<number>`(SELECT COALESCE(MAX(turn_index) + 1, 0) FROM chat_turns WHERE chat_id = ${chatId})`,
              kind,
              status: 'running',
              end_reason: null,
              started_at: context.now(),
              ended_at: null,
              input_json: JSON.stringify(input),
            })
            .returningAll()
            .executeTakeFirstOrThrow(),
        );
        return toTurn(started);
      });
    },
    async finishTurn(options) {
      if (streams.turns) return streams.turns.finishTurn(options);
      const { chatId, turn, status, reason, messages = [] } = options;
      return context.transaction((trx) =>
        streams.write(async () => {
          // The chat's lock, as every write of its history takes it first (SQLite's transaction holds it already).
          if (context.dialect === 'postgres') {
            await lockedRows(
              context,
              trx.selectFrom('chats').select('id').where('id', '=', chatId),
            ).execute();
          }
          // Moved while still running; a refusal below rolls the move back. One statement ends the turn only if
          // it runs: ending a turn is on the hot path, and the reason for a refusal is read only then.
          await streams.ending(trx, chatId, turn);
          const ended = await withConstraintErrors('Ending a turn', () =>
            trx
              .updateTable('chat_turns')
              .set({ status, end_reason: reason ?? null, ended_at: context.now() })
              .where('chat_id', '=', chatId)
              .where('turn_index', '=', turn)
              .where('status', '=', runningStatus)
              .returningAll()
              .executeTakeFirst(),
          );
          if (ended === undefined) {
            const current = await readTurn(trx, chatId, turn);
            if (current === undefined) throw notFound('Turn', `${chatId}/${turn}`);
            throw turnAlreadyEnded(chatId, turn, current.status);
          }
          await streams.ended(trx);
          await append(trx, chatId, turn, messages);
          return toTurn(ended);
        }),
      );
    },
    async getTurn({ chatId, turn }) {
      return readTurn(db, chatId, turn);
    },
    async listTurns(chatId) {
      return (await turnsOfChat(db, chatId)).map(toTurn);
    },
    async closeInterruptedTurns(reason) {
      return context.transaction((trx) =>
        streams.write(async () => {
          const running = await turns(trx).where('status', '=', runningStatus).execute();
          for (const turn of running) await streams.ending(trx, turn.chat_id, turn.turn_index);
          const closed = await trx
            .updateTable('chat_turns')
            .set({ status: 'interrupted', end_reason: reason, ended_at: context.now() })
            .where('status', '=', runningStatus)
            .returningAll()
            .execute();
          await streams.ended(trx);
          return closed.map(toTurn).sort(byTurn);
        }),
      );
    },
    async listRunningTurns() {
      const running = await turns(db)
        .where('status', '=', runningStatus)
        .orderBy('chat_id')
        .orderBy('turn_index')
        .execute();
      return running.map(toTurn);
    },
    async appendPackets({ chatId, turn, packets }) {
      const [result] = await streams.append([{ chatId, turn, packets }]);
      if (!result?.ok) throw result?.error ?? notFound('Turn', `${chatId}/${turn}`);
      return result.last;
    },
    async appendPacketBatches(batches) {
      return batches.length === 0 ? [] : streams.append(batches);
    },
    async listPackets({ chatId, turn, after = 0, limit = defaultPacketPageSize }) {
      checkPacketCursor({ after, limit });
      return streams.list({ chatId, turn, after, limit });
    },
  };
}

/** The `conflict` of a turn started while another of its chat runs. */
export function turnStillRunning(chatId: string, running: number): StorageError {
  return new StorageError({
    code: 'conflict',
    message: `Chat ${JSON.stringify(chatId)} already has a running turn (${running}); stop it or wait for it to end.`,
  });
}

/** The `conflict` of a turn ended twice. */
export function turnAlreadyEnded(chatId: string, turn: number, status: string): StorageError {
  return new StorageError({
    code: 'conflict',
    message: `Turn ${turn} of chat ${JSON.stringify(chatId)} already ended (${status}).`,
  });
}

function byTurn(left: ChatTurnRecord, right: ChatTurnRecord): number {
  return left.chatId < right.chatId ? -1 : left.chatId > right.chatId ? 1 : left.index - right.index;
}

/** A turn's row as the record callers see. */
export function toTurn(row: StorageSchema['chat_turns']): ChatTurnRecord {
  return {
    chatId: row.chat_id,
    index: row.turn_index,
    kind: row.kind as ChatTurnKind,
    status: row.status as ChatTurnStatus,
    endReason: row.end_reason,
    input: JSON.parse(row.input_json) as ChatMessage[],
    startedAt: row.started_at,
    endedAt: row.ended_at,
  };
}

function toStoredMessage(row: StorageSchema['chat_messages']): StoredChatMessage {
  return {
    id: row.id,
    chatId: row.chat_id,
    turn: row.turn_index,
    position: row.position,
    message: JSON.parse(row.message_json) as ChatMessage,
    createdAt: row.created_at,
  };
}

import type { ChatMessage } from '@toolbus/spec';
import { sql } from 'kysely';
import { DEFAULT_ORGANIZATION_ID } from '../organization.ts';
import { checkChatTitle, defaultChatTitle } from '../rules/check-chat-title.ts';
import { checkCount } from '../rules/check-count.ts';
import { camelColumns } from '../sql/camel-columns.ts';
import {
  compiledOnce,
  notFound,
  type StorageDb,
  type StoreContext,
  withStoreConstraintErrors,
} from '../sql/store-context.ts';
import type { ChatStore } from '../storage.ts';
import { createChatWrites, nextActivity, toTurn } from './chat-writes.ts';
import type { PacketStreams } from './packet-streams.ts';

/** The largest page of packets one `listPackets` call returns by default. */
const defaultPacketPageSize = 10_000;

// A literal, not a parameter: only then may SQLite's planner use the partial index of running turns (with a
// parameter it scans every turn of the chat: 78 µs against 4 µs per statement after 3,000 turns).
const runningStatus = sql.lit('running' as const);

const chatColumns = camelColumns(
  'id',
  'user_id',
  'title',
  'persona_id',
  'organization_id',
  'created_at',
  'updated_at',
);

const messageColumns = camelColumns('id', 'chat_id', 'position', 'message_json', 'created_at');

/**
 * Chats: the reads and a chat's own row through the builder, the writes of its turns and history in chat-writes.ts,
 * each turn's packets in the database's own {@link PacketStreams}.
 */
export function createChatStore(context: StoreContext, streams: PacketStreams): ChatStore {
  const { db } = context;
  const activity = sql<number>`${sql.raw(nextActivity[context.dialect])}`;
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
      .set({ title, updated_at: now, activity })
      .where('id', '=', id)
      .returning(chatColumns),
  );
  const messagesOf = compiledOnce((db: StorageDb, chatId: string) =>
    db
      .selectFrom('chat_messages')
      .select([...messageColumns, 'turn_index as turn'])
      .where('chat_id', '=', chatId)
      .orderBy('position'),
  );
  const turns = (db: StorageDb) => db.selectFrom('chat_turns').selectAll();
  const turnByIndex = compiledOnce((db: StorageDb, chatId: string, turn: number) =>
    turns(db).where('chat_id', '=', chatId).where('turn_index', '=', turn),
  );
  const turnsOfChat = compiledOnce((db: StorageDb, chatId: string) =>
    turns(db).where('chat_id', '=', chatId).orderBy('turn_index'),
  );
  const writes = withStoreConstraintErrors('chats', {
    async create(chat) {
      const now = context.now();
      return db
        .insertInto('chats')
        .values({
          id: context.newId(),
          user_id: chat.userId,
          title: checkChatTitle(chat.title ?? defaultChatTitle),
          persona_id: chat.personaId ?? null,
          created_at: now,
          updated_at: now,
          organization_id: chat.organizationId ?? DEFAULT_ORGANIZATION_ID,
          activity,
        })
        .returning(chatColumns)
        .executeTakeFirstOrThrow();
    },
    async rename(id, title) {
      const [renamed] = await renameChat(db, id, checkChatTitle(title), context.now());
      if (renamed === undefined) throw notFound('Chat', id);
      return renamed;
    },
    ...createChatWrites(context, streams),
  } satisfies Partial<ChatStore>);
  return {
    ...writes,
    async get(id) {
      return (await chatById(db, id))[0];
    },
    async listForUser(userId) {
      return chatsOfUser(db, userId);
    },
    async listMessages(chatId) {
      const rows = await messagesOf(db, chatId);
      return rows.map(({ messageJson, ...row }) => ({
        ...row,
        message: JSON.parse(messageJson) as ChatMessage,
      }));
    },
    async getTurn({ chatId, turn }) {
      const [row] = await turnByIndex(db, chatId, turn);
      return row && toTurn(row);
    },
    async listTurns(chatId) {
      return (await turnsOfChat(db, chatId)).map(toTurn);
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
      checkCount('after', after, 0);
      checkCount('limit', limit, 1);
      return streams.list({ chatId, turn, after, limit });
    },
  };
}

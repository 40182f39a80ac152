import { type ChatMessage, packetJson } from '@toolbus/spec';
import type {
  AppendedPacketBatch,
  Chat,
  ChatTurnKind,
  ChatTurnRecord,
  ChatTurnStatus,
  StoredChatMessage,
} from '../chat.ts';
import { DEFAULT_ORGANIZATION_ID } from '../organization.ts';
import { checkChatTitle, defaultChatTitle } from '../rules/check-chat-title.ts';
import { checkPacketCursor, defaultPacketPageSize } from '../rules/check-packet-cursor.ts';
import type { ChatStore } from '../storage.ts';
import { StorageError } from '../storage-error.ts';
import { createRunningPacketLog, type LogAppend } from './running-packet-log.ts';
import { inTransaction, notFound, type SqliteContext, withConstraintErrors } from './sqlite-context.ts';

interface ChatRow {
  id: string;
  user_id: string;
  title: string;
  persona_id: string | null;
  organization_id: string;
  created_at: string;
  updated_at: string;
}

interface TurnRow {
  chat_id: string;
  turn_index: number;
  kind: ChatTurnKind;
  status: ChatTurnStatus;
  end_reason: string | null;
  started_at: string;
  ended_at: string | null;
  input_json: string;
}

interface MessageRow {
  id: string;
  chat_id: string;
  turn_index: number | null;
  position: number;
  message_json: string;
  created_at: string;
}

// Timestamps tie within a millisecond; a counter orders "most recently active" exactly.
const nextActivity = '(SELECT COALESCE(MAX(activity), 0) + 1 FROM chats)';

/**
 * Chats over SQLite: a turn's end and its history are one transaction; packets are kept per turn for replay (a
 * running turn's in the append-only log, moved to `chat_packets` in the transaction that ends it).
 */
export function createSqliteChatStore(context: SqliteContext): ChatStore {
  const { database } = context;
  const log = createRunningPacketLog(database);
  // A transaction that may touch the log: what the log remembered is undone with a rollback.
  const write = <Result>(action: () => Result): Result =>
    log.transaction(() => inTransaction(database, action));
  const insertChat = database.prepare(
    `INSERT INTO chats (id, user_id, title, persona_id, created_at, updated_at, organization_id, activity)
     VALUES (?, ?, ?, ?, ?, ?, ?, ${nextActivity})`,
  );
  const selectChat = database.prepare('SELECT * FROM chats WHERE id = ?');
  const selectChatsForUser = database.prepare('SELECT * FROM chats WHERE user_id = ? ORDER BY activity DESC');
  const renameChat = database.prepare(
    `UPDATE chats SET title = ?, updated_at = ?, activity = ${nextActivity} WHERE id = ?`,
  );
  const touchChat = database.prepare(
    `UPDATE chats SET updated_at = ?, activity = ${nextActivity} WHERE id = ?`,
  );
  const deleteChat = database.prepare('DELETE FROM chats WHERE id = ?');
  const nextPosition = database.prepare(
    'SELECT COALESCE(MAX(position) + 1, 0) AS next FROM chat_messages WHERE chat_id = ?',
  );
  const insertMessage = database.prepare(
    'INSERT INTO chat_messages (id, chat_id, turn_index, position, message_json, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const selectMessages = database.prepare('SELECT * FROM chat_messages WHERE chat_id = ? ORDER BY position');
  const selectRunningTurn = database.prepare(
    "SELECT turn_index FROM chat_turns WHERE chat_id = ? AND status = 'running'",
  );
  const nextTurn = database.prepare(
    'SELECT COALESCE(MAX(turn_index) + 1, 0) AS next FROM chat_turns WHERE chat_id = ?',
  );
  const insertTurn = database.prepare(
    "INSERT INTO chat_turns (chat_id, turn_index, kind, status, started_at, input_json) VALUES (?, ?, ?, 'running', ?, ?)",
  );
  const selectTurn = database.prepare('SELECT * FROM chat_turns WHERE chat_id = ? AND turn_index = ?');
  const selectTurns = database.prepare('SELECT * FROM chat_turns WHERE chat_id = ? ORDER BY turn_index');
  const endTurn = database.prepare(
    "UPDATE chat_turns SET status = ?, end_reason = ?, ended_at = ? WHERE chat_id = ? AND turn_index = ? AND status = 'running'",
  );
  // The turn's end and the row as it then is, in one statement (no read before and after).
  const endRunningTurn = database.prepare(
    "UPDATE chat_turns SET status = ?, end_reason = ?, ended_at = ? WHERE chat_id = ? AND turn_index = ? AND status = 'running' RETURNING *",
  );
  const chatExists = database.prepare('SELECT 1 AS found FROM chats WHERE id = ?');
  const selectAllRunning = database.prepare("SELECT * FROM chat_turns WHERE status = 'running'");
  const turnStatus = database.prepare('SELECT status FROM chat_turns WHERE chat_id = ? AND turn_index = ?');
  const lastSequence = database.prepare(
    'SELECT COALESCE(MAX(sequence), 0) AS last FROM chat_packets WHERE chat_id = ? AND turn_index = ?',
  );
  const insertPacket = database.prepare(
    'INSERT INTO chat_packets (chat_id, turn_index, sequence, packet_json) VALUES (?, ?, ?, ?)',
  );
  const selectPackets = database.prepare(
    'SELECT sequence, packet_json FROM chat_packets WHERE chat_id = ? AND turn_index = ? AND sequence > ? ORDER BY sequence LIMIT ?',
  );

  const readChat = (id: string): Chat | undefined => {
    const row = selectChat.get(id) as ChatRow | undefined;
    return row && toChat(row);
  };
  const requireChat = (id: string): Chat => {
    const chat = readChat(id);
    if (chat === undefined) throw notFound('Chat', id);
    return chat;
  };
  const readTurn = (chatId: string, turn: number): ChatTurnRecord | undefined => {
    const row = selectTurn.get(chatId, turn) as TurnRow | undefined;
    return row && toTurn(row);
  };
  const tableLast = (chatId: string, turn: number) =>
    (lastSequence.get(chatId, turn) as { last: number }).last;
  // Inside a transaction: a missing turn is refused before anything of its batch is written. A running turn's
  // packets go to the log; an ended one's (closing packets written after its end) straight to chat_packets.
  const appendToTurn = (chatId: string, turn: number, packets: readonly unknown[]): number => {
    const row = turnStatus.get(chatId, turn) as { status: ChatTurnStatus } | undefined;
    if (row === undefined) throw notFound('Turn', `${chatId}/${turn}`);
    if (row.status === 'running') {
      return log.append(
        chatId,
        turn,
        packets.map((packet) => packetJson(packet)),
        () => tableLast(chatId, turn),
      );
    }
    let last = tableLast(chatId, turn);
    for (const packet of packets) {
      last += 1;
      insertPacket.run(chatId, turn, last, packetJson(packet));
    }
    return last;
  };
  const append = (
    chatId: string,
    turn: number | null,
    messages: readonly ChatMessage[],
  ): StoredChatMessage[] => {
    const now = context.now();
    let { next } = nextPosition.get(chatId) as { next: number };
    const stored: StoredChatMessage[] = [];
    for (const message of messages) {
      const id = context.newId();
      insertMessage.run(id, chatId, turn, next, JSON.stringify(message), now);
      stored.push({ id, chatId, turn, position: next, message, createdAt: now });
      next += 1;
    }
    if (messages.length > 0) touchChat.run(now, chatId);
    return stored;
  };

  return {
    async create(chat) {
      const id = context.newId();
      const now = context.now();
      withConstraintErrors('Creating a chat', () =>
        insertChat.run(
          id,
          chat.userId,
          checkChatTitle(chat.title ?? defaultChatTitle),
          chat.personaId ?? null,
          now,
          now,
          chat.organizationId ?? DEFAULT_ORGANIZATION_ID,
        ),
      );
      return readChat(id)!;
    },
    async get(id) {
      return readChat(id);
    },
    async listForUser(userId) {
      return (selectChatsForUser.all(userId) as unknown as ChatRow[]).map(toChat);
    },
    async rename(id, title) {
      if (Number(renameChat.run(checkChatTitle(title), context.now(), id).changes) === 0)
        throw notFound('Chat', id);
      return readChat(id)!;
    },
    async delete(id) {
      return write(() => {
        log.forgetChat(id);
        return Number(deleteChat.run(id).changes) > 0;
      });
    },
    async appendMessages(chatId, messages) {
      return inTransaction(database, () => {
        requireChat(chatId);
        return append(chatId, null, messages);
      });
    },
    async listMessages(chatId) {
      return (selectMessages.all(chatId) as unknown as MessageRow[]).map(toStoredMessage);
    },
    async startTurn({ chatId, kind = 'chat', input = [] }) {
      return write(() => {
        if (chatExists.get(chatId) === undefined) throw notFound('Chat', chatId);
        const running = selectRunningTurn.get(chatId) as { turn_index: number } | undefined;
        if (running !== undefined) {
          throw new StorageError({
            code: 'conflict',
            message: `Chat ${JSON.stringify(chatId)} already has a running turn (${running.turn_index}); stop it or wait for it to end.`,
          });
        }
        const { next } = nextTurn.get(chatId) as { next: number };
        const row: TurnRow = {
          chat_id: chatId,
          turn_index: next,
          kind,
          status: 'running',
          end_reason: null,
          started_at: context.now(),
          ended_at: null,
          input_json: JSON.stringify(input),
        };
        withConstraintErrors('Starting a turn', () =>
          insertTurn.run(chatId, next, kind, row.started_at, row.input_json),
        );
        log.begin(chatId, next);
        // The record as a read would give it (the input as stored), without reading the row back.
        return toTurn(row);
      });
    },
    async finishTurn({ chatId, turn, status, reason, messages = [] }) {
      return write(() => {
        // Moved while still running: the log finds a turn it does not know among the running ones. (A turn that
        // is not running has no logged rows, and the refusal below rolls this back.)
        log.move(chatId, turn);
        const ended = withConstraintErrors(
          'Ending a turn',
          () =>
            endRunningTurn.get(status, reason ?? null, context.now(), chatId, turn) as TurnRow | undefined,
        );
        if (ended === undefined) {
          // Nothing was running under that key: either no such turn, or it already ended.
          const current = readTurn(chatId, turn);
          if (current === undefined) throw notFound('Turn', `${chatId}/${turn}`);
          throw new StorageError({
            code: 'conflict',
            message: `Turn ${turn} of chat ${JSON.stringify(chatId)} already ended (${current.status}).`,
          });
        }
        log.sweep();
        append(chatId, turn, messages);
        return toTurn(ended);
      });
    },
    async getTurn({ chatId, turn }) {
      return readTurn(chatId, turn);
    },
    async listTurns(chatId) {
      return (selectTurns.all(chatId) as unknown as TurnRow[]).map(toTurn);
    },
    async closeInterruptedTurns(reason) {
      return write(() => {
        const running = (selectAllRunning.all() as unknown as TurnRow[]).map(toTurn);
        const now = context.now();
        for (const turn of running) {
          log.move(turn.chatId, turn.index);
          endTurn.run('interrupted', reason, now, turn.chatId, turn.index);
        }
        log.sweep();
        return running.map((turn) => readTurn(turn.chatId, turn.index)!);
      });
    },
    async listRunningTurns() {
      return (selectAllRunning.all() as unknown as TurnRow[]).map(toTurn);
    },
    async appendPackets({ chatId, turn, packets }) {
      return write(() => appendToTurn(chatId, turn, packets));
    },
    async appendPacketBatches(batches) {
      if (batches.length === 0) return [];
      return write(() => {
        // Each batch is checked first (a missing turn fails alone); the running turns' packets then go to the log
        // together, in a few multi-row inserts.
        const results: (AppendedPacketBatch | undefined)[] = [];
        const running: { readonly index: number; readonly append: LogAppend }[] = [];
        for (const [index, batch] of batches.entries()) {
          const row = turnStatus.get(batch.chatId, batch.turn) as { status: ChatTurnStatus } | undefined;
          if (row === undefined) {
            results[index] = { ok: false, error: notFound('Turn', `${batch.chatId}/${batch.turn}`) };
          } else if (row.status === 'running') {
            const { chatId, turn } = batch;
            running.push({
              index,
              append: {
                chatId,
                turn,
                packetsJson: batch.packets.map((packet) => packetJson(packet)),
                tableLast: () => tableLast(chatId, turn),
              },
            });
          } else {
            results[index] = { ok: true, last: appendToTurn(batch.chatId, batch.turn, batch.packets) };
          }
        }
        const lasts = log.appendAll(running.map((entry) => entry.append));
        for (const [position, entry] of running.entries()) {
          results[entry.index] = { ok: true, last: lasts[position] as number };
        }
        return results as AppendedPacketBatch[];
      });
    },
    async listPackets({ chatId, turn, after = 0, limit = defaultPacketPageSize }) {
      checkPacketCursor({ after, limit });
      const rows = (
        selectPackets.all(chatId, turn, after, limit) as unknown as {
          sequence: number;
          packet_json: string;
        }[]
      ).map((row) => ({ sequence: row.sequence, packetJson: row.packet_json }));
      const status = turnStatus.get(chatId, turn) as { status: ChatTurnStatus } | undefined;
      if (rows.length < limit && status?.status === 'running') {
        rows.push(...log.read(chatId, turn, rows.at(-1)?.sequence ?? after, limit - rows.length));
      } else if (status?.status !== 'running') log.forgetEnded(chatId, turn);
      return rows.map((row) => ({ sequence: row.sequence, packet: JSON.parse(row.packetJson) as unknown }));
    },
  };
}

function toChat(row: ChatRow): Chat {
  return {
    id: row.id,
    userId: row.user_id,
    title: row.title,
    personaId: row.persona_id,
    organizationId: row.organization_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toTurn(row: TurnRow): ChatTurnRecord {
  return {
    chatId: row.chat_id,
    index: row.turn_index,
    kind: row.kind,
    status: row.status,
    endReason: row.end_reason,
    input: JSON.parse(row.input_json) as ChatMessage[],
    startedAt: row.started_at,
    endedAt: row.ended_at,
  };
}

function toStoredMessage(row: MessageRow): StoredChatMessage {
  return {
    id: row.id,
    chatId: row.chat_id,
    turn: row.turn_index,
    position: row.position,
    message: JSON.parse(row.message_json) as ChatMessage,
    createdAt: row.created_at,
  };
}

import type { ChatMessage } from '@toolbus/spec';
import {
  type AppendedPacketBatch,
  type Chat,
  type ChatStore,
  type ChatTurnKind,
  type ChatTurnRecord,
  type ChatTurnStatus,
  DEFAULT_ORGANIZATION_ID,
  StorageError,
  type StoredChatMessage,
} from '@toolbus/storage';
import {
  checkChatTitle,
  checkPacketCursor,
  defaultChatTitle,
  defaultPacketPageSize,
} from '@toolbus/storage/backend';
import {
  isoTime,
  isoTimeOrNull,
  notFound,
  type PostgresContext,
  type Queryable,
  withConstraintErrors,
} from './postgres-context.ts';

interface ChatRow {
  id: string;
  user_id: string;
  title: string;
  persona_id: string | null;
  organization_id: string;
  created_at: Date;
  updated_at: Date;
}

interface TurnRow {
  chat_id: string;
  turn_index: number;
  kind: ChatTurnKind;
  status: ChatTurnStatus;
  end_reason: string | null;
  input: ChatMessage[];
  started_at: Date;
  ended_at: Date | null;
}

interface MessageRow {
  id: string;
  chat_id: string;
  turn_index: number | null;
  position: number;
  message: ChatMessage;
  created_at: Date;
}

const chatColumns = 'id, user_id, title, persona_id, organization_id, created_at, updated_at';
const turnColumns =
  'chat_id, turn_index, kind, status, end_reason, input_json AS input, started_at, ended_at';

/**
 * Chats over PostgreSQL, safe with several server replicas on one database: every write to a chat's turns or
 * history first locks the chat's row, so "one running turn per chat", history positions and packet sequences stay
 * gapless however many processes write (a partial unique index holds the running-turn rule as well). A turn's end
 * and its history are one transaction; packets are kept per turn for replay.
 */
export function createPostgresChatStore(context: PostgresContext): ChatStore {
  const { pool } = context;
  const readChat = async (client: Queryable, id: string): Promise<Chat | undefined> => {
    const { rows } = await client.query<ChatRow>(`SELECT ${chatColumns} FROM chats WHERE id = $1`, [id]);
    return rows[0] && toChat(rows[0]);
  };
  const lockChat = async (client: Queryable, id: string): Promise<void> => {
    const { rowCount } = await client.query('SELECT 1 FROM chats WHERE id = $1 FOR UPDATE', [id]);
    if (rowCount === 0) throw notFound('Chat', id);
  };
  const readTurn = async (
    client: Queryable,
    chatId: string,
    turn: number,
  ): Promise<ChatTurnRecord | undefined> => {
    const { rows } = await client.query<TurnRow>(
      `SELECT ${turnColumns} FROM chat_turns WHERE chat_id = $1 AND turn_index = $2`,
      [chatId, turn],
    );
    return rows[0] && toTurn(rows[0]);
  };
  // Appends after the chat's last message; the caller holds the chat's lock.
  const append = async (
    client: Queryable,
    chatId: string,
    turn: number | null,
    messages: readonly ChatMessage[],
  ): Promise<StoredChatMessage[]> => {
    if (messages.length === 0) return [];
    const now = context.now();
    const ids = messages.map(() => context.newId());
    const { rows } = await client.query<MessageRow>(
      `INSERT INTO chat_messages (id, chat_id, turn_index, position, message_json, created_at)
       SELECT m.id, $1, $2,
              (SELECT COALESCE(MAX(position) + 1, 0) FROM chat_messages WHERE chat_id = $1) + m.ordinality - 1,
              m.message::json, $3
         FROM unnest($4::text[], $5::text[]) WITH ORDINALITY AS m(id, message, ordinality)
       RETURNING id, chat_id, turn_index, position, message_json AS message, created_at`,
      [chatId, turn, now, ids, messages.map((message) => JSON.stringify(message))],
    );
    await client.query(
      "UPDATE chats SET updated_at = $1, activity = nextval('chat_activity') WHERE id = $2",
      [now, chatId],
    );
    return rows.map(toStoredMessage).sort((left, right) => left.position - right.position);
  };

  return {
    async create(chat) {
      const now = context.now();
      const { rows } = await withConstraintErrors('Creating a chat', () =>
        pool.query<ChatRow>(
          `INSERT INTO chats (id, user_id, title, persona_id, created_at, updated_at, organization_id)
           VALUES ($1, $2, $3, $4, $5, $5, $6)
           RETURNING ${chatColumns}`,
          [
            context.newId(),
            chat.userId,
            checkChatTitle(chat.title ?? defaultChatTitle),
            chat.personaId ?? null,
            now,
            chat.organizationId ?? DEFAULT_ORGANIZATION_ID,
          ],
        ),
      );
      return toChat(rows[0]!);
    },
    get: (id) => readChat(pool, id),
    async listForUser(userId) {
      const { rows } = await pool.query<ChatRow>(
        `SELECT ${chatColumns} FROM chats WHERE user_id = $1 ORDER BY activity DESC`,
        [userId],
      );
      return rows.map(toChat);
    },
    async rename(id, title) {
      const { rows } = await pool.query<ChatRow>(
        `UPDATE chats SET title = $1, updated_at = $2, activity = nextval('chat_activity') WHERE id = $3
         RETURNING ${chatColumns}`,
        [checkChatTitle(title), context.now(), id],
      );
      if (!rows[0]) throw notFound('Chat', id);
      return toChat(rows[0]);
    },
    async delete(id) {
      return ((await pool.query('DELETE FROM chats WHERE id = $1', [id])).rowCount ?? 0) > 0;
    },
    appendMessages(chatId, messages) {
      return context.transaction(async (client) => {
        await lockChat(client, chatId);
        return append(client, chatId, null, messages);
      });
    },
    async listMessages(chatId) {
      const { rows } = await pool.query<MessageRow>(
        'SELECT id, chat_id, turn_index, position, message_json AS message, created_at FROM chat_messages WHERE chat_id = $1 ORDER BY position',
        [chatId],
      );
      return rows.map(toStoredMessage);
    },
    startTurn({ chatId, kind = 'chat', input = [] }) {
      return context.transaction(async (client) => {
        await lockChat(client, chatId);
        const running = await client.query<{ turn_index: number }>(
          "SELECT turn_index FROM chat_turns WHERE chat_id = $1 AND status = 'running'",
          [chatId],
        );
        if (running.rows[0] !== undefined) {
          throw new StorageError({
            code: 'conflict',
            message: `Chat ${JSON.stringify(chatId)} already has a running turn (${running.rows[0].turn_index}); stop it or wait for it to end.`,
          });
        }
        const { rows } = await withConstraintErrors('Starting a turn', () =>
          client.query<TurnRow>(
            `INSERT INTO chat_turns (chat_id, turn_index, kind, status, started_at, input_json)
             VALUES ($1, (SELECT COALESCE(MAX(turn_index) + 1, 0) FROM chat_turns WHERE chat_id = $1), $2, 'running',
                     $3, $4::json)
             RETURNING ${turnColumns}`,
            [chatId, kind, context.now(), JSON.stringify(input)],
          ),
        );
        return toTurn(rows[0]!);
      });
    },
    finishTurn({ chatId, turn, status, reason, messages = [] }) {
      return context.transaction(async (client) => {
        const chat = await client.query('SELECT 1 FROM chats WHERE id = $1 FOR UPDATE', [chatId]);
        const current = chat.rowCount === 0 ? undefined : await readTurn(client, chatId, turn);
        if (current === undefined) throw notFound('Turn', `${chatId}/${turn}`);
        if (current.status !== 'running') {
          throw new StorageError({
            code: 'conflict',
            message: `Turn ${turn} of chat ${JSON.stringify(chatId)} already ended (${current.status}).`,
          });
        }
        const { rows } = await withConstraintErrors('Ending a turn', () =>
          client.query<TurnRow>(
            `UPDATE chat_turns SET status = $1, end_reason = $2, ended_at = $3
              WHERE chat_id = $4 AND turn_index = $5 AND status = 'running'
             RETURNING ${turnColumns}`,
            [status, reason ?? null, context.now(), chatId, turn],
          ),
        );
        await append(client, chatId, turn, messages);
        return toTurn(rows[0]!);
      });
    },
    getTurn: ({ chatId, turn }) => readTurn(pool, chatId, turn),
    async listTurns(chatId) {
      const { rows } = await pool.query<TurnRow>(
        `SELECT ${turnColumns} FROM chat_turns WHERE chat_id = $1 ORDER BY turn_index`,
        [chatId],
      );
      return rows.map(toTurn);
    },
    async closeInterruptedTurns(reason) {
      const { rows } = await pool.query<TurnRow>(
        `UPDATE chat_turns SET status = 'interrupted', end_reason = $1, ended_at = $2 WHERE status = 'running'
         RETURNING ${turnColumns}`,
        [reason, context.now()],
      );
      return rows.map(toTurn);
    },
    async listRunningTurns() {
      const { rows } = await pool.query<TurnRow>(
        `SELECT ${turnColumns} FROM chat_turns WHERE status = 'running' ORDER BY chat_id, turn_index`,
      );
      return rows.map(toTurn);
    },
    async appendPackets({ chatId, turn, packets }) {
      // One statement, so one round trip: the turn's counter reserves the sequence numbers (its row lock orders
      // concurrent appends) and the packets are inserted with them.
      const { rows } = await pool.query<{ last_sequence: number }>(
        `WITH reserved AS (
           UPDATE chat_turns SET last_sequence = last_sequence + $3
            WHERE chat_id = $1 AND turn_index = $2 RETURNING last_sequence
         ), inserted AS (
           INSERT INTO chat_packets (chat_id, turn_index, sequence, packet_json)
           SELECT $1, $2, reserved.last_sequence - $3 + p.ordinality, p.packet::json
             FROM reserved, unnest($4::text[]) WITH ORDINALITY AS p(packet, ordinality)
         )
         SELECT last_sequence FROM reserved`,
        [chatId, turn, packets.length, packets.map((packet) => JSON.stringify(packet) ?? 'null')],
      );
      if (!rows[0]) throw notFound('Turn', `${chatId}/${turn}`);
      return rows[0].last_sequence;
    },
    async appendPacketBatches(batches) {
      if (batches.length === 0) return [];
      // One statement for every batch, as appendPackets does for one: each turn's counter reserves its sequence
      // numbers and its packets are inserted with them. Batches of the same turn are counted together (one counter
      // update each), each packet carrying its position within its turn's share of the call.
      const totals = new Map<string, number>();
      const ends: number[] = [];
      const packetChats: string[] = [];
      const packetTurns: number[] = [];
      const positions: number[] = [];
      const texts: string[] = [];
      for (const batch of batches) {
        const key = turnKey(batch.chatId, batch.turn);
        let position = totals.get(key) ?? 0;
        for (const packet of batch.packets) {
          position += 1;
          packetChats.push(batch.chatId);
          packetTurns.push(batch.turn);
          positions.push(position);
          texts.push(JSON.stringify(packet) ?? 'null');
        }
        totals.set(key, position);
        ends.push(position);
      }
      const turns = [...new Map(batches.map((batch) => [turnKey(batch.chatId, batch.turn), batch])).values()];
      const { rows } = await pool.query<{ chat_id: string; turn_index: number; last_sequence: number }>(
        `WITH wanted AS (
           SELECT * FROM unnest($1::text[], $2::int[], $3::int[]) AS w(chat_id, turn_index, count)
         ), reserved AS (
           UPDATE chat_turns t SET last_sequence = t.last_sequence + w.count
             FROM wanted w WHERE t.chat_id = w.chat_id AND t.turn_index = w.turn_index
           RETURNING t.chat_id, t.turn_index, t.last_sequence, w.count
         ), inserted AS (
           INSERT INTO chat_packets (chat_id, turn_index, sequence, packet_json)
           SELECT p.chat_id, p.turn_index, r.last_sequence - r.count + p.position, p.packet::json
             FROM unnest($4::text[], $5::int[], $6::int[], $7::text[]) AS p(chat_id, turn_index, position, packet)
             JOIN reserved r ON r.chat_id = p.chat_id AND r.turn_index = p.turn_index
         )
         SELECT chat_id, turn_index, last_sequence FROM reserved`,
        [
          turns.map((batch) => batch.chatId),
          turns.map((batch) => batch.turn),
          turns.map((batch) => totals.get(turnKey(batch.chatId, batch.turn)) ?? 0),
          packetChats,
          packetTurns,
          positions,
          texts,
        ],
      );
      const lastOf = new Map(rows.map((row) => [turnKey(row.chat_id, row.turn_index), row.last_sequence]));
      return batches.map((batch, index): AppendedPacketBatch => {
        const key = turnKey(batch.chatId, batch.turn);
        const last = lastOf.get(key);
        if (last === undefined)
          return { ok: false, error: notFound('Turn', `${batch.chatId}/${batch.turn}`) };
        return { ok: true, last: last - (totals.get(key) ?? 0) + (ends[index] ?? 0) };
      });
    },
    async listPackets({ chatId, turn, after = 0, limit = defaultPacketPageSize }) {
      checkPacketCursor({ after, limit });
      const { rows } = await pool.query<{ sequence: number; packet: unknown }>(
        `SELECT sequence, packet_json AS packet FROM chat_packets WHERE chat_id = $1 AND turn_index = $2 AND sequence > $3
          ORDER BY sequence LIMIT $4`,
        [chatId, turn, after, limit],
      );
      return rows.map((row) => ({ sequence: row.sequence, packet: row.packet }));
    },
  };
}

function turnKey(chatId: string, turn: number): string {
  return `${chatId}\u0000${turn}`;
}

function toChat(row: ChatRow): Chat {
  return {
    id: row.id,
    userId: row.user_id,
    title: row.title,
    personaId: row.persona_id,
    organizationId: row.organization_id,
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
  };
}

function toTurn(row: TurnRow): ChatTurnRecord {
  return {
    chatId: row.chat_id,
    index: row.turn_index,
    kind: row.kind,
    status: row.status,
    endReason: row.end_reason,
    input: row.input,
    startedAt: isoTime(row.started_at),
    endedAt: isoTimeOrNull(row.ended_at),
  };
}

function toStoredMessage(row: MessageRow): StoredChatMessage {
  return {
    id: row.id,
    chatId: row.chat_id,
    turn: row.turn_index,
    position: row.position,
    message: row.message,
    createdAt: isoTime(row.created_at),
  };
}

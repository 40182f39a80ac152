import type { ChatMessage } from '@toolbus/spec';
import type { ChatTurnRecord } from '../chat.ts';
import { jsonArray } from '../sql/json-array-parameter.ts';
import type { StorageSchema } from '../sql/storage-schema.ts';
import { notFound, type StorageDialect, type StoreContext } from '../sql/store-context.ts';
import type { ChatStore } from '../storage.ts';
import { StorageError } from '../storage-error.ts';
import type { PacketStreams, RunStatement } from './packet-streams.ts';

type TurnRow = StorageSchema['chat_turns'];

/** The next value of a chat's activity, its order among its user's chats (a counter: timestamps tie within a millisecond). */
export const nextActivity: Readonly<Record<StorageDialect, string>> = {
  postgres: "nextval('chat_activity')",
  sqlite: '(SELECT COALESCE(MAX(activity), 0) + 1 FROM chats)',
};

// Each message's id and JSON text from two JSON arrays ($4, $5; json-array-parameter.ts), in order, each message's
// text kept as it is.
const messageRows: Readonly<Record<StorageDialect, string>> = {
  postgres: `ROWS FROM (json_array_elements_text($4::json), json_array_elements($5::json))
             WITH ORDINALITY AS m(id, message, ordinality)`,
  sqlite:
    '(SELECT $4 ->> m.key AS id, m.value AS message, m.key + 1 AS ordinality FROM json_each($5) AS m) AS m',
};

/**
 * A chat's turns and history written as SQL both databases run ({@link RunStatement}). Every write to a chat's turns
 * or history first locks the chat's row on PostgreSQL, so "one running turn per chat" and history positions hold
 * however many replicas write; SQLite's IMMEDIATE transactions hold the whole database. `status = 'running'` is a
 * literal, never a parameter (chat-store.ts says why).
 */
export function createChatWrites(
  context: StoreContext,
  streams: PacketStreams,
): Pick<ChatStore, 'delete' | 'startTurn' | 'finishTurn'> {
  const chatRow = `SELECT 1 AS found FROM chats WHERE id = $1${context.dialect === 'postgres' ? ' FOR UPDATE' : ''}`;
  // Whether the chat exists; its row locked on PostgreSQL.
  const lockChat = async (run: RunStatement, chatId: string) => (await run(chatRow, [chatId])).length > 0;
  const insertHistory = `INSERT INTO chat_messages (id, chat_id, turn_index, position, message_json, created_at)
    SELECT m.id, $1, $2, next.position + m.ordinality - 1, m.message, $3
      FROM (SELECT COALESCE(MAX(position) + 1, 0) AS position FROM chat_messages WHERE chat_id = $1) AS next,
           ${messageRows[context.dialect]}`;
  const touchChat = `UPDATE chats SET updated_at = $3, activity = ${nextActivity[context.dialect]} WHERE id = $1`;
  // After the chat's last message, its lock held; the chat's activity with it (on PostgreSQL in one statement).
  const appendHistory = async (
    run: RunStatement,
    chatId: string,
    turn: number,
    messages: readonly ChatMessage[],
    now: string,
  ): Promise<void> => {
    if (messages.length === 0) return;
    const ids = messages.map(() => context.newId());
    const texts = jsonArray(messages.map((message) => JSON.stringify(message)));
    const values = [chatId, turn, now, JSON.stringify(ids), texts];
    if (context.dialect === 'postgres') {
      await run(`WITH inserted AS (${insertHistory}) ${touchChat}`, values);
    } else {
      await run(insertHistory, values);
      await run(touchChat, values.slice(0, 3));
    }
  };
  return {
    async delete(id) {
      return streams.transaction(async (run) => {
        streams.deleting?.(id);
        return (await run('DELETE FROM chats WHERE id = $1 RETURNING id', [id])).length > 0;
      });
    },
    async startTurn({ chatId, kind = 'chat', input = [] }) {
      return streams.transaction(async (run) => {
        if (!(await lockChat(run, chatId))) throw notFound('Chat', chatId);
        const [running] = await run<{ turn_index: number }>(
          "SELECT turn_index FROM chat_turns WHERE chat_id = $1 AND status = 'running'",
          [chatId],
        );
        if (running !== undefined) throw turnStillRunning(chatId, running.turn_index);
        // The next index read in the insert itself: one round trip less on PostgreSQL.
        const [started] = (await run<TurnRow>(
          `INSERT INTO chat_turns (chat_id, turn_index, kind, status, started_at, input_json)
           VALUES ($1, (SELECT COALESCE(MAX(turn_index) + 1, 0) FROM chat_turns WHERE chat_id = $1), $2, 'running',
                   $3, $4)
           RETURNING *`,
          [chatId, kind, context.now(), JSON.stringify(input)],
        )) as [TurnRow];
        return toTurn(started);
      });
    },
    async finishTurn({ chatId, turn, status, reason, messages = [], packets = [], endToken }) {
      try {
        return await streams.transaction(async (run) => {
          const chatExists = await lockChat(run, chatId);
          // Moved while still running; a refusal below rolls the move back.
          streams.ending?.(chatId, turn);
          const now = context.now();
          // One statement ends the turn only if it runs: ending a turn is on the hot path, and the reason for a
          // refusal is read only then.
          const [ended] = await run<TurnRow>(
            `UPDATE chat_turns SET status = $1, end_reason = $2, ended_at = $3, end_token = $6
              WHERE chat_id = $4 AND turn_index = $5 AND status = 'running' RETURNING *`,
            [status, reason ?? null, now, chatId, turn, endToken ?? null],
          );
          if (ended === undefined) {
            const [current] = !chatExists
              ? []
              : await run<TurnRow>('SELECT * FROM chat_turns WHERE chat_id = $1 AND turn_index = $2', [
                  chatId,
                  turn,
                ]);
            if (current === undefined) throw notFound('Turn', `${chatId}/${turn}`);
            // Ended by an earlier try of this closer whose reply was lost: its end, not another's.
            if (endToken !== undefined && current.end_token === endToken)
              throw new EndedEarlier(toTurn(current));
            throw turnAlreadyEnded(chatId, turn, current.status);
          }
          streams.ended?.();
          // Only the closer that ends the turn stores its closing packets: a refused end stores none.
          if (packets.length > 0) await streams.appendClosing(run, { chatId, turn, packets });
          await appendHistory(run, chatId, turn, messages, now);
          return toTurn(ended);
        });
      } catch (error) {
        if (error instanceof EndedEarlier) return error.turn;
        throw error;
      }
    },
  };
}

/** The `conflict` of a turn started while another of its chat runs. */
function turnStillRunning(chatId: string, running: number): StorageError {
  return new StorageError({
    code: 'conflict',
    message: `Chat ${JSON.stringify(chatId)} already has a running turn (${running}); stop it or wait for it to end.`,
  });
}

/**
 * Thrown inside a turn's end to roll it back when the turn was already ended by an earlier try of the same closer
 * (its token): the move of its packets is undone, and the caller gets the turn as that try ended it.
 */
class EndedEarlier {
  readonly turn: ChatTurnRecord;
  constructor(turn: ChatTurnRecord) {
    this.turn = turn;
  }
}

/** The `conflict` of a turn ended twice, or written to once ended. */
export function turnAlreadyEnded(chatId: string, turn: number, status: string): StorageError {
  return new StorageError({
    code: 'conflict',
    message: `Turn ${turn} of chat ${JSON.stringify(chatId)} already ended (${status}).`,
  });
}

/** A turn's row as the record callers see. */
export function toTurn(row: TurnRow): ChatTurnRecord {
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

import { randomUUID } from 'node:crypto';
import type { AppendedPacketBatch, ChatStore, PacketBatch } from '@toolbus/storage';
import {
  constraintError,
  notFound,
  type StorageSchema,
  toTurn,
  turnAlreadyEnded,
  turnStillRunning,
} from '@toolbus/storage/backend';
import type pg from 'pg';
import { jsonArray } from './json-array-parameter.ts';
import { inPostgresTransaction } from './postgres-transaction.ts';

type TurnRow = StorageSchema['chat_turns'];

/**
 * Starting and ending a turn on PostgreSQL, in PostgreSQL's own SQL on the pool: the chat store's rules, errors and
 * locks (the chat's row first, as every write to its history), without the query builder, which cost 1.6× the
 * statements' client time on these two (BENCHMARKS.md; docs/postgres-storage.md).
 */
export function createPostgresTurns(
  pool: pg.Pool,
  /** Appends a turn's packets on the client, in its transaction (the closing packets a finish stores). */
  appendPackets: (client: pg.PoolClient, batch: PacketBatch) => Promise<AppendedPacketBatch>,
): Pick<ChatStore, 'startTurn' | 'finishTurn'> {
  return {
    startTurn: ({ chatId, kind = 'chat', input = [] }) =>
      inPostgresTransaction(pool, async (client) => {
        await lockChat(client, chatId);
        const running = await client.query<{ turn_index: number }>(
          "SELECT turn_index FROM chat_turns WHERE chat_id = $1 AND status = 'running'",
          [chatId],
        );
        const [other] = running.rows;
        if (other !== undefined) throw turnStillRunning(chatId, other.turn_index);
        const { rows } = await client
          .query<TurnRow>(
            `INSERT INTO chat_turns (chat_id, turn_index, kind, status, started_at, input_json)
             VALUES ($1, (SELECT COALESCE(MAX(turn_index) + 1, 0) FROM chat_turns WHERE chat_id = $1), $2,
                     'running', $3, $4)
             RETURNING *`,
            [chatId, kind, new Date().toISOString(), JSON.stringify(input)],
          )
          .catch((error: unknown) => {
            throw constraintError('Starting a turn', error);
          });
        return toTurn(rows[0] as TurnRow);
      }),
    finishTurn: ({ chatId, turn, status, reason, messages = [], packets = [] }) =>
      inPostgresTransaction(pool, async (client) => {
        const chat = await client.query('SELECT 1 FROM chats WHERE id = $1 FOR UPDATE', [chatId]);
        const now = new Date().toISOString();
        // One statement ends the turn only if it runs; the reason for a refusal is read only then.
        const { rows } = await client
          .query<TurnRow>(
            `UPDATE chat_turns SET status = $1, end_reason = $2, ended_at = $3
              WHERE chat_id = $4 AND turn_index = $5 AND status = 'running' RETURNING *`,
            [status, reason ?? null, now, chatId, turn],
          )
          .catch((error: unknown) => {
            throw constraintError('Ending a turn', error);
          });
        const [ended] = rows;
        if (ended === undefined) {
          const current =
            chat.rowCount === 0
              ? undefined
              : (
                  await client.query<{ status: string }>(
                    'SELECT status FROM chat_turns WHERE chat_id = $1 AND turn_index = $2',
                    [chatId, turn],
                  )
                ).rows[0];
          if (current === undefined) throw notFound('Turn', `${chatId}/${turn}`);
          throw turnAlreadyEnded(chatId, turn, current.status);
        }
        if (packets.length > 0) await appendPackets(client, { chatId, turn, packets });
        if (messages.length > 0) {
          // The history after the chat's last message (its lock held), and the chat's activity, in one statement.
          await client.query(
            `WITH next AS (SELECT COALESCE(MAX(position) + 1, 0) AS position FROM chat_messages WHERE chat_id = $1),
             inserted AS (
               INSERT INTO chat_messages (id, chat_id, turn_index, position, message_json, created_at)
               SELECT m.id, $1, $2, next.position + m.ordinality - 1, m.message, $3
                 FROM next, ROWS FROM (json_array_elements_text($4::json), json_array_elements($5::json))
                      WITH ORDINALITY AS m(id, message, ordinality)
             )
             UPDATE chats SET updated_at = $3, activity = nextval('chat_activity') WHERE id = $1`,
            [
              chatId,
              turn,
              now,
              JSON.stringify(messages.map(() => randomUUID())),
              jsonArray(messages.map((message) => JSON.stringify(message))),
            ],
          );
        }
        return toTurn(ended);
      }),
  };
}

async function lockChat(client: pg.PoolClient, chatId: string): Promise<void> {
  const { rowCount } = await client.query('SELECT 1 FROM chats WHERE id = $1 FOR UPDATE', [chatId]);
  if (rowCount === 0) throw notFound('Chat', chatId);
}

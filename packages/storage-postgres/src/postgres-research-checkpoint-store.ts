import type { ResearchCheckpointStore } from '@toolbus/storage';
import { checkpointTurnEnded, researchCheckpointJson } from '@toolbus/storage/backend';
import { notFound, type PostgresContext } from './postgres-context.ts';

/**
 * Research checkpoints over PostgreSQL: one `json` value per running turn, replaced by each save (`json` as for
 * packets: `jsonb` refuses a NUL in a string, which a fetched page may hold).
 */
export function createPostgresResearchCheckpointStore(context: PostgresContext): ResearchCheckpointStore {
  const { pool } = context;
  return {
    async save({ chatId, turn, checkpoint }) {
      const json = researchCheckpointJson(checkpoint);
      // One statement: written only while the turn runs (its row locked against a concurrent end).
      const { rowCount } = await pool.query(
        `INSERT INTO research_checkpoints (chat_id, turn_index, checkpoint_json, saved_at)
         SELECT chat_id, turn_index, $3::json, $4 FROM chat_turns
           WHERE chat_id = $1 AND turn_index = $2 AND status = 'running' FOR SHARE
         ON CONFLICT (chat_id, turn_index) DO UPDATE SET checkpoint_json = excluded.checkpoint_json, saved_at = excluded.saved_at`,
        [chatId, turn, json, context.now()],
      );
      if ((rowCount ?? 0) > 0) return;
      const { rows } = await pool.query<{ status: string }>(
        'SELECT status FROM chat_turns WHERE chat_id = $1 AND turn_index = $2',
        [chatId, turn],
      );
      const status = rows[0]?.status;
      if (status === undefined) throw notFound('Turn', `${chatId}/${turn}`);
      throw checkpointTurnEnded(chatId, turn, status);
    },
    async get({ chatId, turn }) {
      const { rows } = await pool.query<{ checkpoint: unknown }>(
        'SELECT checkpoint_json AS checkpoint FROM research_checkpoints WHERE chat_id = $1 AND turn_index = $2',
        [chatId, turn],
      );
      return rows[0]?.checkpoint;
    },
    async delete({ chatId, turn }) {
      const { rowCount } = await pool.query(
        'DELETE FROM research_checkpoints WHERE chat_id = $1 AND turn_index = $2',
        [chatId, turn],
      );
      return (rowCount ?? 0) > 0;
    },
  };
}

import { checkpointTurnEnded, researchCheckpointJson } from '../rules/research-checkpoint-rules.ts';
import type { ResearchCheckpointStore } from '../storage.ts';
import { inTransaction, notFound, type SqliteContext } from './sqlite-context.ts';

/** Research checkpoints over SQLite: one JSON text per running turn, replaced by each save. */
export function createSqliteResearchCheckpointStore(context: SqliteContext): ResearchCheckpointStore {
  const { database } = context;
  const selectStatus = database.prepare('SELECT status FROM chat_turns WHERE chat_id = ? AND turn_index = ?');
  const upsert = database.prepare(
    `INSERT INTO research_checkpoints (chat_id, turn_index, checkpoint_json, saved_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (chat_id, turn_index) DO UPDATE SET checkpoint_json = excluded.checkpoint_json, saved_at = excluded.saved_at`,
  );
  const select = database.prepare(
    'SELECT checkpoint_json FROM research_checkpoints WHERE chat_id = ? AND turn_index = ?',
  );
  const remove = database.prepare('DELETE FROM research_checkpoints WHERE chat_id = ? AND turn_index = ?');
  return {
    async save({ chatId, turn, checkpoint }) {
      const json = researchCheckpointJson(checkpoint);
      inTransaction(database, () => {
        const row = selectStatus.get(chatId, turn) as { status: string } | undefined;
        if (row === undefined) throw notFound('Turn', `${chatId}/${turn}`);
        if (row.status !== 'running') throw checkpointTurnEnded(chatId, turn, row.status);
        upsert.run(chatId, turn, json, context.now());
      });
    },
    async get({ chatId, turn }) {
      const row = select.get(chatId, turn) as { checkpoint_json: string } | undefined;
      return row === undefined ? undefined : (JSON.parse(row.checkpoint_json) as unknown);
    },
    async delete({ chatId, turn }) {
      return Number(remove.run(chatId, turn).changes) > 0;
    },
  };
}

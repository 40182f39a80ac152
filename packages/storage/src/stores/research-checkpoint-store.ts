import { jsonText } from '../rules/json-text.ts';
import { deleteRows, notFound, type StoreContext, upsert } from '../sql/store-context.ts';
import type { ResearchCheckpointStore } from '../storage.ts';
import { turnAlreadyEnded } from './chat-writes.ts';

/**
 * Research checkpoints: one JSON value per running turn, replaced by each save (PostgreSQL's column is `json`, as
 * for packets: `jsonb` refuses a NUL in a string, which a fetched page may hold).
 */
export function createResearchCheckpointStore(context: StoreContext): ResearchCheckpointStore {
  const { db } = context;
  const at = (chatId: string, turn: number) => ({ chat_id: chatId, turn_index: turn });
  return {
    async save({ chatId, turn, checkpoint }) {
      const checkpoint_json = jsonText(checkpoint, 'A research checkpoint');
      await context.transaction(async (trx) => {
        // Written only while the turn runs (its row locked): a replica that lost the turn must not write after its end.
        const ofTurn = trx
          .selectFrom('chat_turns')
          .select('status')
          .where((eb) => eb.and(at(chatId, turn)));
        const row = await context.locked(ofTurn).executeTakeFirst();
        if (row === undefined) throw notFound('Turn', `${chatId}/${turn}`);
        if (row.status !== 'running') throw turnAlreadyEnded(chatId, turn, row.status);
        await upsert(trx, 'research_checkpoints', at(chatId, turn), {
          checkpoint_json,
          saved_at: context.now(),
        });
      });
    },
    async get({ chatId, turn }) {
      const row = await db
        .selectFrom('research_checkpoints')
        .select('checkpoint_json')
        .where((eb) => eb.and(at(chatId, turn)))
        .executeTakeFirst();
      return row === undefined ? undefined : (JSON.parse(row.checkpoint_json) as unknown);
    },
    async delete({ chatId, turn }) {
      return deleteRows(db, 'research_checkpoints', at(chatId, turn));
    },
  };
}

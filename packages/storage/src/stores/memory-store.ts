import { DEFAULT_ORGANIZATION_ID } from '../organization.ts';
import { checkCount } from '../rules/check-count.ts';
import { camelColumns } from '../sql/camel-columns.ts';
import { deleteRows, notFound, type StoreContext, withStoreConstraintErrors } from '../sql/store-context.ts';
import type { MemoryStore } from '../storage.ts';

const columns = camelColumns('id', 'user_id', 'organization_id', 'text', 'created_at', 'updated_at');

/** Per-user, per-organisation memories, oldest first; adding past the cap deletes the oldest in the same transaction. */
export function createMemoryStore(context: StoreContext): MemoryStore {
  const { db } = context;
  return withStoreConstraintErrors('memories', {
    async add(memory) {
      const { userId, maxPerUser } = memory;
      if (maxPerUser !== undefined) checkCount('maxPerUser', maxPerUser, 1);
      const now = context.now();
      const organizationId = memory.organizationId ?? DEFAULT_ORGANIZATION_ID;
      return context.transaction(async (trx) => {
        if (maxPerUser !== undefined) {
          // The user's row lock serialises two adds of the same user, so the cap holds under concurrency.
          await context.locked(trx.selectFrom('users').select('id').where('id', '=', userId)).execute();
          // Only the newest `maxPerUser - 1` stay, so the cap holds with the new one.
          const ofUser = trx
            .selectFrom('memories')
            .where('user_id', '=', userId)
            .where('organization_id', '=', organizationId);
          const newest = ofUser
            .select('id')
            .orderBy(context.newestFirst)
            .limit(maxPerUser - 1);
          await trx
            .deleteFrom('memories')
            .where('id', 'in', ofUser.select('id'))
            .where('id', 'not in', newest)
            .execute();
        }
        return trx
          .insertInto('memories')
          .values({
            id: context.newId(),
            user_id: userId,
            organization_id: organizationId,
            text: memory.text,
            created_at: now,
            updated_at: now,
          })
          .returning(columns)
          .executeTakeFirstOrThrow();
      });
    },
    async list(userId, organizationId = DEFAULT_ORGANIZATION_ID) {
      return db
        .selectFrom('memories')
        .select(columns)
        .where('user_id', '=', userId)
        .where('organization_id', '=', organizationId)
        .orderBy(context.oldestFirst)
        .execute();
    },
    async update(id, text) {
      return db
        .updateTable('memories')
        .set({ text, updated_at: context.now() })
        .where('id', '=', id)
        .returning(columns)
        .executeTakeFirstOrThrow(() => notFound('Memory', id));
    },
    async delete(id) {
      return deleteRows(db, 'memories', { id });
    },
  });
}

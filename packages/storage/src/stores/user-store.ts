import type { Selectable, Updateable } from 'kysely';
import { DEFAULT_ORGANIZATION_ID } from '../organization.ts';
import type { StorageSchema } from '../sql/storage-schema.ts';
import { changed, notFound, type StoreContext, withStoreConstraintErrors } from '../sql/store-context.ts';
import type { UserStore } from '../storage.ts';
import type { User, UserSettings } from '../user.ts';

const columns = ['id', 'email', 'name', 'memory_tool_enabled', 'search_usage', 'role', 'created_at'] as const;

/** Users and their settings. */
export function createUserStore(context: StoreContext): UserStore {
  const { db } = context;
  const users = () => db.selectFrom('users').select(columns);
  const update = async (id: string, values: Updateable<StorageSchema['users']>) =>
    toUser(
      await db
        .updateTable('users')
        .set(values)
        .where('id', '=', id)
        .returning(columns)
        .executeTakeFirstOrThrow(() => notFound('User', id)),
    );
  return withStoreConstraintErrors('users', {
    async create(user) {
      // A user always belongs to an organisation: the one named, else the default one, in the same transaction.
      const now = context.now();
      const row = await context.transaction(async (trx) => {
        const created = await trx
          .insertInto('users')
          .values({
            id: context.newId(),
            email: user.email,
            name: user.name ?? null,
            ...settingsRow({ memoryToolEnabled: false, searchUsage: 'auto', ...user.settings }),
            created_at: now,
            role: user.role ?? 'user',
          })
          .returning(columns)
          .executeTakeFirstOrThrow();
        await trx
          .insertInto('organization_members')
          .values({
            organization_id: user.organizationId ?? DEFAULT_ORGANIZATION_ID,
            user_id: created.id,
            role: user.role === 'admin' ? 'admin' : 'member',
            created_at: now,
          })
          .execute();
        return created;
      });
      return toUser(row);
    },
    async get(id) {
      const row = await users().where('id', '=', id).executeTakeFirst();
      return row && toUser(row);
    },
    async getByEmail(email) {
      const row = await users().where('email', '=', email).executeTakeFirst();
      return row && toUser(row);
    },
    async updateSettings(id, settings) {
      const current = await users().where('id', '=', id).executeTakeFirst();
      if (current === undefined) throw notFound('User', id);
      return update(id, settingsRow({ ...toUser(current).settings, ...settings }));
    },
    async delete(id) {
      return changed(await db.deleteFrom('users').where('id', '=', id).executeTakeFirst()) > 0;
    },
    async list() {
      return (await users().orderBy('created_at').orderBy(context.insertionOrder).execute()).map(toUser);
    },
    setRole: (id, role) => update(id, { role }),
  });
}

function settingsRow(settings: UserSettings) {
  return { memory_tool_enabled: settings.memoryToolEnabled, search_usage: settings.searchUsage };
}

function toUser(row: Selectable<StorageSchema['users']>): User {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    settings: { memoryToolEnabled: Boolean(row.memory_tool_enabled), searchUsage: row.search_usage },
    createdAt: row.created_at,
  };
}

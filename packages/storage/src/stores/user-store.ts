import type { Selectable } from 'kysely';
import { DEFAULT_ORGANIZATION_ID } from '../organization.ts';
import type { StorageSchema } from '../sql/storage-schema.ts';
import { changed, notFound, type StoreContext, withConstraintErrors } from '../sql/store-context.ts';
import type { UserStore } from '../storage.ts';
import type { SearchUsage, User, UserRole } from '../user.ts';

const columns = ['id', 'email', 'name', 'memory_tool_enabled', 'search_usage', 'role', 'created_at'] as const;

type UserRow = Selectable<StorageSchema['users']>;

/** Users and their settings. */
export function createUserStore(context: StoreContext): UserStore {
  const { db } = context;
  const byId = (id: string) => db.selectFrom('users').select(columns).where('id', '=', id);
  const updated = async (id: string, row: UserRow | undefined): Promise<User> => {
    if (row === undefined) throw notFound('User', id);
    return toUser(row);
  };
  return {
    async create(user) {
      // A user always belongs to an organisation: the one named, else the default one, in the same transaction.
      const now = context.now();
      const row = await context.transaction(async (trx) => {
        const created = await withConstraintErrors('Creating a user', () =>
          trx
            .insertInto('users')
            .values({
              id: context.newId(),
              email: user.email,
              name: user.name ?? null,
              memory_tool_enabled: user.settings?.memoryToolEnabled === true,
              search_usage: user.settings?.searchUsage ?? 'auto',
              created_at: now,
              role: user.role ?? 'user',
            })
            .returning(columns)
            .executeTakeFirstOrThrow(),
        );
        await withConstraintErrors('Adding the user to an organisation', () =>
          trx
            .insertInto('organization_members')
            .values({
              organization_id: user.organizationId ?? DEFAULT_ORGANIZATION_ID,
              user_id: created.id,
              role: user.role === 'admin' ? 'admin' : 'member',
              created_at: now,
            })
            .execute(),
        );
        return created;
      });
      return toUser(row);
    },
    async get(id) {
      const row = await byId(id).executeTakeFirst();
      return row && toUser(row);
    },
    async getByEmail(email) {
      const row = await db.selectFrom('users').select(columns).where('email', '=', email).executeTakeFirst();
      return row && toUser(row);
    },
    async updateSettings(id, settings) {
      const current = await byId(id).executeTakeFirst();
      if (current === undefined) throw notFound('User', id);
      const next = { ...toUser(current).settings, ...settings };
      const row = await withConstraintErrors('Updating user settings', () =>
        db
          .updateTable('users')
          .set({ memory_tool_enabled: next.memoryToolEnabled, search_usage: next.searchUsage })
          .where('id', '=', id)
          .returning(columns)
          .executeTakeFirst(),
      );
      return updated(id, row);
    },
    async delete(id) {
      return changed(await db.deleteFrom('users').where('id', '=', id).executeTakeFirst()) > 0;
    },
    async list() {
      const rows = await db
        .selectFrom('users')
        .select(columns)
        .orderBy('created_at')
        .orderBy(context.insertionOrder)
        .execute();
      return rows.map(toUser);
    },
    async setRole(id, role) {
      const row = await withConstraintErrors('Setting a role', () =>
        db.updateTable('users').set({ role }).where('id', '=', id).returning(columns).executeTakeFirst(),
      );
      return updated(id, row);
    },
  };
}

function toUser(row: UserRow): User {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role as UserRole,
    settings: {
      memoryToolEnabled: Boolean(row.memory_tool_enabled),
      searchUsage: row.search_usage as SearchUsage,
    },
    createdAt: row.created_at,
  };
}

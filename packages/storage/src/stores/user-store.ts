import { DEFAULT_ORGANIZATION_ID } from '../organization.ts';
import { camelColumns, type StoredRow } from '../sql/camel-columns.ts';
import { deleteRows, notFound, type StoreContext, withStoreConstraintErrors } from '../sql/store-context.ts';
import type { UserStore } from '../storage.ts';
import type { User } from '../user.ts';

const columns = camelColumns(
  'id',
  'email',
  'name',
  'role',
  'memory_tool_enabled',
  'search_usage',
  'created_at',
);

export function createUserStore(context: StoreContext): UserStore {
  const { db } = context;
  const users = () => db.selectFrom('users').select(columns);
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
            memory_tool_enabled: user.settings?.memoryToolEnabled ?? false,
            search_usage: user.settings?.searchUsage ?? 'auto',
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
    async get(by) {
      const query =
        typeof by === 'string' ? users().where('id', '=', by) : users().where('email', '=', by.email);
      const row = await query.executeTakeFirst();
      return row && toUser(row);
    },
    async update(id, { role, settings = {} }) {
      // Only the given fields change, in one statement: a concurrent update of another field is not undone.
      const row = await db
        .updateTable('users')
        .set((eb) => ({
          role: role ?? eb.ref('role'),
          memory_tool_enabled: settings.memoryToolEnabled ?? eb.ref('memory_tool_enabled'),
          search_usage: settings.searchUsage ?? eb.ref('search_usage'),
        }))
        .where('id', '=', id)
        .returning(columns)
        .executeTakeFirstOrThrow(() => notFound('User', id));
      return toUser(row);
    },
    async delete(id) {
      return deleteRows(db, 'users', { id });
    },
    async list() {
      return (await users().orderBy(context.oldestFirst).execute()).map(toUser);
    },
  });
}

function toUser({ memoryToolEnabled, searchUsage, ...user }: StoredRow<'users'>): User {
  return { ...user, settings: { memoryToolEnabled: Boolean(memoryToolEnabled), searchUsage } };
}

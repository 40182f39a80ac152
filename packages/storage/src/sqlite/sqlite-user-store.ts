import { DEFAULT_ORGANIZATION_ID } from '../organization.ts';
import type { UserStore } from '../storage.ts';
import type { SearchUsage, User, UserRole } from '../user.ts';
import { inTransaction, notFound, type SqliteContext, withConstraintErrors } from './sqlite-context.ts';

interface UserRow {
  id: string;
  email: string;
  name: string | null;
  memory_tool_enabled: number;
  search_usage: SearchUsage;
  role: UserRole;
  created_at: string;
}

/** Users and their settings over SQLite. */
export function createSqliteUserStore(context: SqliteContext): UserStore {
  const { database } = context;
  const insert = database.prepare(
    'INSERT INTO users (id, email, name, memory_tool_enabled, search_usage, created_at, role) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const selectById = database.prepare('SELECT * FROM users WHERE id = ?');
  const selectByEmail = database.prepare('SELECT * FROM users WHERE email = ?');
  const updateSettings = database.prepare(
    'UPDATE users SET memory_tool_enabled = ?, search_usage = ? WHERE id = ?',
  );
  const insertMembership = database.prepare(
    'INSERT INTO organization_members (organization_id, user_id, role, created_at) VALUES (?, ?, ?, ?)',
  );
  const deleteById = database.prepare('DELETE FROM users WHERE id = ?');
  const selectAll = database.prepare('SELECT * FROM users ORDER BY created_at, rowid');
  const updateRole = database.prepare('UPDATE users SET role = ? WHERE id = ?');
  const read = (id: string): User | undefined => {
    const row = selectById.get(id) as UserRow | undefined;
    return row && toUser(row);
  };
  return {
    async create(user) {
      const id = context.newId();
      const now = context.now();
      // A user always belongs to an organisation: the one named, else the default one, in the same transaction.
      inTransaction(database, () => {
        withConstraintErrors('Creating a user', () =>
          insert.run(
            id,
            user.email,
            user.name ?? null,
            user.settings?.memoryToolEnabled ? 1 : 0,
            user.settings?.searchUsage ?? 'auto',
            now,
            user.role ?? 'user',
          ),
        );
        withConstraintErrors('Adding the user to an organisation', () =>
          insertMembership.run(
            user.organizationId ?? DEFAULT_ORGANIZATION_ID,
            id,
            user.role === 'admin' ? 'admin' : 'member',
            now,
          ),
        );
      });
      return read(id)!;
    },
    async get(id) {
      return read(id);
    },
    async getByEmail(email) {
      const row = selectByEmail.get(email) as UserRow | undefined;
      return row && toUser(row);
    },
    async updateSettings(id, settings) {
      const current = read(id);
      if (!current) throw notFound('User', id);
      const next = { ...current.settings, ...settings };
      withConstraintErrors('Updating user settings', () =>
        updateSettings.run(next.memoryToolEnabled ? 1 : 0, next.searchUsage, id),
      );
      return read(id)!;
    },
    async delete(id) {
      return Number(deleteById.run(id).changes) > 0;
    },
    async list() {
      return (selectAll.all() as unknown as UserRow[]).map(toUser);
    },
    async setRole(id, role) {
      if (Number(withConstraintErrors('Setting a role', () => updateRole.run(role, id)).changes) === 0)
        throw notFound('User', id);
      return read(id)!;
    },
  };
}

function toUser(row: UserRow): User {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    settings: { memoryToolEnabled: row.memory_tool_enabled === 1, searchUsage: row.search_usage },
    createdAt: row.created_at,
  };
}

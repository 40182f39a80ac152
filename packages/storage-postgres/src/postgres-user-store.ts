import {
  DEFAULT_ORGANIZATION_ID,
  type SearchUsage,
  type User,
  type UserRole,
  type UserStore,
} from '@toolbus/storage';
import { isoTime, notFound, type PostgresContext, withConstraintErrors } from './postgres-context.ts';

interface UserRow {
  id: string;
  email: string;
  name: string | null;
  memory_tool_enabled: boolean;
  search_usage: SearchUsage;
  role: UserRole;
  created_at: Date;
}

const columns = 'id, email, name, memory_tool_enabled, search_usage, role, created_at';

/** Users and their settings over PostgreSQL. */
export function createPostgresUserStore(context: PostgresContext): UserStore {
  const { pool } = context;
  const read = async (id: string): Promise<User | undefined> => {
    const { rows } = await pool.query<UserRow>(`SELECT ${columns} FROM users WHERE id = $1`, [id]);
    return rows[0] && toUser(rows[0]);
  };
  return {
    async create(user) {
      // A user always belongs to an organisation: the one named, else the default one, in the same transaction.
      const row = await context.transaction(async (client) => {
        const now = context.now();
        const { rows } = await withConstraintErrors('Creating a user', () =>
          client.query<UserRow>(
            `INSERT INTO users (id, email, name, memory_tool_enabled, search_usage, created_at, role)
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${columns}`,
            [
              context.newId(),
              user.email,
              user.name ?? null,
              user.settings?.memoryToolEnabled === true,
              user.settings?.searchUsage ?? 'auto',
              now,
              user.role ?? 'user',
            ],
          ),
        );
        const created = rows[0]!;
        await withConstraintErrors('Adding the user to an organisation', () =>
          client.query(
            'INSERT INTO organization_members (organization_id, user_id, role, created_at) VALUES ($1, $2, $3, $4)',
            [
              user.organizationId ?? DEFAULT_ORGANIZATION_ID,
              created.id,
              user.role === 'admin' ? 'admin' : 'member',
              now,
            ],
          ),
        );
        return created;
      });
      return toUser(row);
    },
    get: read,
    async getByEmail(email) {
      const { rows } = await pool.query<UserRow>(`SELECT ${columns} FROM users WHERE email = $1`, [email]);
      return rows[0] && toUser(rows[0]);
    },
    async updateSettings(id, settings) {
      const current = await read(id);
      if (!current) throw notFound('User', id);
      const next = { ...current.settings, ...settings };
      const { rows } = await withConstraintErrors('Updating user settings', () =>
        pool.query<UserRow>(
          `UPDATE users SET memory_tool_enabled = $1, search_usage = $2 WHERE id = $3 RETURNING ${columns}`,
          [next.memoryToolEnabled, next.searchUsage, id],
        ),
      );
      if (!rows[0]) throw notFound('User', id);
      return toUser(rows[0]);
    },
    async delete(id) {
      return ((await pool.query('DELETE FROM users WHERE id = $1', [id])).rowCount ?? 0) > 0;
    },
    async list() {
      const { rows } = await pool.query<UserRow>(`SELECT ${columns} FROM users ORDER BY created_at, ordinal`);
      return rows.map(toUser);
    },
    async setRole(id, role) {
      const { rows } = await withConstraintErrors('Setting a role', () =>
        pool.query<UserRow>(`UPDATE users SET role = $1 WHERE id = $2 RETURNING ${columns}`, [role, id]),
      );
      if (!rows[0]) throw notFound('User', id);
      return toUser(rows[0]);
    },
  };
}

function toUser(row: UserRow): User {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    settings: { memoryToolEnabled: row.memory_tool_enabled, searchUsage: row.search_usage },
    createdAt: isoTime(row.created_at),
  };
}

import { DEFAULT_ORGANIZATION_ID, type Memory, type MemoryStore } from '@toolbus/storage';
import { checkMemoryCap } from '@toolbus/storage/backend';
import { isoTime, notFound, type PostgresContext, withConstraintErrors } from './postgres-context.ts';

interface MemoryRow {
  id: string;
  user_id: string;
  organization_id: string;
  text: string;
  created_at: Date;
  updated_at: Date;
}

const columns = 'id, user_id, organization_id, text, created_at, updated_at';

/** Per-user, per-organisation memories over PostgreSQL, oldest first; adding past the cap deletes the oldest in the same transaction. */
export function createPostgresMemoryStore(context: PostgresContext): MemoryStore {
  const { pool } = context;
  return {
    async add(memory) {
      checkMemoryCap(memory.maxPerUser);
      const now = context.now();
      const organizationId = memory.organizationId ?? DEFAULT_ORGANIZATION_ID;
      const row = await context.transaction(async (client) => {
        const { maxPerUser } = memory;
        if (maxPerUser !== undefined) {
          // The user's row lock serialises two adds of the same user, so the cap holds under concurrency.
          await client.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [memory.userId]);
          await client.query(
            `DELETE FROM memories WHERE id IN (
               SELECT id FROM memories WHERE user_id = $1 AND organization_id = $3 ORDER BY created_at, ordinal
               LIMIT GREATEST(
                 (SELECT COUNT(*) FROM memories WHERE user_id = $1 AND organization_id = $3) - $2 + 1, 0))`,
            [memory.userId, maxPerUser, organizationId],
          );
        }
        const { rows } = await withConstraintErrors('Adding a memory', () =>
          client.query<MemoryRow>(
            `INSERT INTO memories (id, user_id, organization_id, text, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $5) RETURNING ${columns}`,
            [context.newId(), memory.userId, organizationId, memory.text, now],
          ),
        );
        return rows[0]!;
      });
      return toMemory(row);
    },
    async list(userId, organizationId = DEFAULT_ORGANIZATION_ID) {
      const { rows } = await pool.query<MemoryRow>(
        `SELECT ${columns} FROM memories WHERE user_id = $1 AND organization_id = $2 ORDER BY created_at, ordinal`,
        [userId, organizationId],
      );
      return rows.map(toMemory);
    },
    async update(id, text) {
      const { rows } = await pool.query<MemoryRow>(
        `UPDATE memories SET text = $1, updated_at = $2 WHERE id = $3 RETURNING ${columns}`,
        [text, context.now(), id],
      );
      if (!rows[0]) throw notFound('Memory', id);
      return toMemory(rows[0]);
    },
    async delete(id) {
      return ((await pool.query('DELETE FROM memories WHERE id = $1', [id])).rowCount ?? 0) > 0;
    },
  };
}

function toMemory(row: MemoryRow): Memory {
  return {
    id: row.id,
    userId: row.user_id,
    organizationId: row.organization_id,
    text: row.text,
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
  };
}

import type { Memory } from '../memory.ts';
import { DEFAULT_ORGANIZATION_ID } from '../organization.ts';
import { checkMemoryCap } from '../rules/check-memory-cap.ts';
import type { MemoryStore } from '../storage.ts';
import { inTransaction, notFound, type SqliteContext, withConstraintErrors } from './sqlite-context.ts';

interface MemoryRow {
  id: string;
  user_id: string;
  organization_id: string;
  text: string;
  created_at: string;
  updated_at: string;
}

/** Per-user, per-organisation memories over SQLite, oldest first; adding past the cap deletes the oldest in the same transaction. */
export function createSqliteMemoryStore(context: SqliteContext): MemoryStore {
  const { database } = context;
  const insert = database.prepare(
    'INSERT INTO memories (id, user_id, organization_id, text, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const selectById = database.prepare('SELECT * FROM memories WHERE id = ?');
  const selectForUser = database.prepare(
    'SELECT * FROM memories WHERE user_id = ? AND organization_id = ? ORDER BY created_at, rowid',
  );
  const countForUser = database.prepare(
    'SELECT COUNT(*) AS count FROM memories WHERE user_id = ? AND organization_id = ?',
  );
  const deleteOldest = database.prepare(
    'DELETE FROM memories WHERE id IN (SELECT id FROM memories WHERE user_id = ? AND organization_id = ? ORDER BY created_at, rowid LIMIT ?)',
  );
  const update = database.prepare('UPDATE memories SET text = ?, updated_at = ? WHERE id = ?');
  const deleteById = database.prepare('DELETE FROM memories WHERE id = ?');
  const read = (id: string): Memory | undefined => {
    const row = selectById.get(id) as MemoryRow | undefined;
    return row && toMemory(row);
  };
  return {
    async add(memory) {
      checkMemoryCap(memory.maxPerUser);
      const id = context.newId();
      const now = context.now();
      const organizationId = memory.organizationId ?? DEFAULT_ORGANIZATION_ID;
      inTransaction(database, () => {
        if (memory.maxPerUser !== undefined) {
          const { count } = countForUser.get(memory.userId, organizationId) as { count: number };
          const excess = count - memory.maxPerUser + 1;
          if (excess > 0) deleteOldest.run(memory.userId, organizationId, excess);
        }
        withConstraintErrors('Adding a memory', () =>
          insert.run(id, memory.userId, organizationId, memory.text, now, now),
        );
      });
      return read(id)!;
    },
    async list(userId, organizationId = DEFAULT_ORGANIZATION_ID) {
      return (selectForUser.all(userId, organizationId) as unknown as MemoryRow[]).map(toMemory);
    },
    async update(id, text) {
      if (Number(update.run(text, context.now(), id).changes) === 0) throw notFound('Memory', id);
      return read(id)!;
    },
    async delete(id) {
      return Number(deleteById.run(id).changes) > 0;
    },
  };
}

function toMemory(row: MemoryRow): Memory {
  return {
    id: row.id,
    userId: row.user_id,
    organizationId: row.organization_id,
    text: row.text,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

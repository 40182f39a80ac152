import type { SettingStore } from '@toolbus/storage';
import { settingJson } from '@toolbus/storage/backend';
import type { PostgresContext } from './postgres-context.ts';

/** Deployment-wide settings over PostgreSQL, stored as `jsonb`. */
export function createPostgresSettingStore(context: PostgresContext): SettingStore {
  const { pool } = context;
  return {
    async get(key) {
      const { rows } = await pool.query<{ value: unknown }>(
        'SELECT value_json AS value FROM settings WHERE key = $1',
        [key],
      );
      return rows[0]?.value;
    },
    async set(key, value) {
      await pool.query(
        `INSERT INTO settings (key, value_json, updated_at) VALUES ($1, $2::jsonb, $3)
         ON CONFLICT (key) DO UPDATE SET value_json = excluded.value_json, updated_at = excluded.updated_at`,
        [key, settingJson(key, value), context.now()],
      );
    },
    async delete(key) {
      return ((await pool.query('DELETE FROM settings WHERE key = $1', [key])).rowCount ?? 0) > 0;
    },
  };
}

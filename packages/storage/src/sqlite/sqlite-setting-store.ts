import { settingJson } from '../rules/setting-json.ts';
import type { SettingStore } from '../storage.ts';
import type { SqliteContext } from './sqlite-context.ts';

/** Deployment-wide settings over SQLite, stored as JSON text. */
export function createSqliteSettingStore(context: SqliteContext): SettingStore {
  const { database } = context;
  const select = database.prepare('SELECT value_json FROM settings WHERE key = ?');
  const upsert = database.prepare(`INSERT INTO settings (key, value_json, updated_at) VALUES (?, ?, ?)
    ON CONFLICT (key) DO UPDATE SET value_json = excluded.value_json, updated_at = excluded.updated_at`);
  const deleteByKey = database.prepare('DELETE FROM settings WHERE key = ?');
  return {
    async get(key) {
      const row = select.get(key) as { value_json: string } | undefined;
      return row === undefined ? undefined : (JSON.parse(row.value_json) as unknown);
    },
    async set(key, value) {
      const json = settingJson(key, value);
      upsert.run(key, json, context.now());
    },
    async delete(key) {
      return Number(deleteByKey.run(key).changes) > 0;
    },
  };
}

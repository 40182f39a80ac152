import { jsonText } from '../rules/json-text.ts';
import { deleteRows, type StoreContext, upsert } from '../sql/store-context.ts';
import type { SettingStore } from '../storage.ts';

export function createSettingStore(context: StoreContext): SettingStore {
  const { db } = context;
  return {
    async get(key) {
      const row = await db
        .selectFrom('settings')
        .select('value_json')
        .where('key', '=', key)
        .executeTakeFirst();
      return row === undefined ? undefined : (JSON.parse(row.value_json) as unknown);
    },
    async set(key, value) {
      const value_json = jsonText(value, `The setting ${key}`);
      await upsert(db, 'settings', { key }, { value_json, updated_at: context.now() });
    },
    async delete(key) {
      return deleteRows(db, 'settings', { key });
    },
  };
}

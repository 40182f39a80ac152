import { jsonText } from '../rules/json-text.ts';
import { deleteRows, type StoreContext } from '../sql/store-context.ts';
import type { SettingStore } from '../storage.ts';

/** Deployment-wide settings, stored as JSON. */
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
      const row = { key, value_json: jsonText(value, `The setting ${key}`), updated_at: context.now() };
      await db
        .insertInto('settings')
        .values(row)
        .onConflict((conflict) =>
          conflict.column('key').doUpdateSet({ value_json: row.value_json, updated_at: row.updated_at }),
        )
        .execute();
    },
    async delete(key) {
      return deleteRows(db, 'settings', { key });
    },
  };
}

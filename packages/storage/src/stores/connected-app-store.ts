import type { Selectable } from 'kysely';
import type { ConnectedAppRecord } from '../connected-app.ts';
import { DEFAULT_ORGANIZATION_ID } from '../organization.ts';
import type { StorageSchema } from '../sql/storage-schema.ts';
import { deleteRows, type StoreContext, withStoreConstraintErrors } from '../sql/store-context.ts';
import type { ConnectedAppStore } from '../storage.ts';
import { nonEmpty, sealedColumn } from './sealed-column.ts';

/** Connected apps: headers and values sealed per row and column (each user's values are `userSecrets`). */
export function createConnectedAppStore(context: StoreContext): ConnectedAppStore {
  const { db, secrets } = context;
  const headers = sealedColumn<Record<string, string>>(secrets, 'connected_apps.headers_secret');
  const values = sealedColumn<Record<string, string>>(secrets, 'connected_apps.organization_values_secret');
  const toRecord = (row: Selectable<StorageSchema['connected_apps']>): ConnectedAppRecord => ({
    id: row.id,
    userId: row.user_id,
    organizationId: row.organization_id,
    name: row.name,
    urlPatterns: JSON.parse(row.url_patterns_json) as string[],
    actions: JSON.parse(row.actions_json) as ConnectedAppRecord['actions'],
    headers: headers.open(row.id, row.headers_secret),
    organizationValues: values.open(row.id, row.organization_values_secret) ?? {},
    enabled: Boolean(row.enabled),
    createdAt: row.created_at,
  });
  const apps = () => db.selectFrom('connected_apps').selectAll().orderBy('id');
  return withStoreConstraintErrors('connectedApps', {
    async create(app) {
      // The row id is part of each secret's context: inserted, then sealed, in one transaction.
      const row = await context.transaction(async (trx) => {
        const { id } = await trx
          .insertInto('connected_apps')
          .values({
            user_id: app.userId,
            organization_id: app.organizationId ?? DEFAULT_ORGANIZATION_ID,
            name: app.name,
            url_patterns_json: JSON.stringify(app.urlPatterns),
            actions_json: JSON.stringify(app.actions ?? []),
            headers_secret: '',
            organization_values_secret: null,
            enabled: app.enabled !== false,
            created_at: context.now(),
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        return trx
          .updateTable('connected_apps')
          .set({
            headers_secret: headers.seal(id, app.headers),
            organization_values_secret: values.seal(id, nonEmpty(app.organizationValues)),
          })
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirstOrThrow();
      });
      return toRecord(row);
    },
    async get(id) {
      const row = await apps().where('id', '=', id).executeTakeFirst();
      return row && toRecord(row);
    },
    async list(options = {}) {
      const { organizationId, userId } = options;
      const rows = await apps()
        .$if(organizationId !== undefined, (query) => query.where('organization_id', '=', organizationId!))
        .$if(userId !== undefined, (query) =>
          query.where((eb) => eb.or([eb('user_id', 'is', null), eb('user_id', '=', userId!)])),
        )
        .execute();
      return rows.map(toRecord);
    },
    async delete(id) {
      return deleteRows(db, 'connected_apps', { id });
    },
  });
}

import type { ConnectedAppRecord } from '../connected-app.ts';
import { DEFAULT_ORGANIZATION_ID } from '../organization.ts';
import type { StorageSchema } from '../sql/storage-schema.ts';
import { deleteRows, type StoreContext, withStoreConstraintErrors } from '../sql/store-context.ts';
import type { ConnectedAppStore } from '../storage.ts';

type ConnectedAppRow = Omit<StorageSchema['connected_apps'], 'id'> & { id: number };

/** Connected apps: headers and values sealed per row and column (each user's values are `userSecrets`). */
export function createConnectedAppStore(context: StoreContext): ConnectedAppStore {
  const { db, secrets } = context;
  const headersContext = (id: number) => `connected_apps.headers_secret:${id}`;
  const valuesContext = (id: number) => `connected_apps.organization_values_secret:${id}`;
  const open = (sealed: string, secretContext: string) =>
    JSON.parse(secrets.open(sealed, secretContext)) as Record<string, string>;
  const toRecord = (row: ConnectedAppRow): ConnectedAppRecord => ({
    id: row.id,
    userId: row.user_id,
    organizationId: row.organization_id,
    name: row.name,
    urlPatterns: JSON.parse(row.url_patterns_json) as string[],
    actions: JSON.parse(row.actions_json) as ConnectedAppRecord['actions'],
    headers: open(row.headers_secret, headersContext(row.id)),
    organizationValues:
      row.organization_values_secret === null
        ? {}
        : open(row.organization_values_secret, valuesContext(row.id)),
    enabled: Boolean(row.enabled),
    createdAt: row.created_at,
  });
  const apps = () => db.selectFrom('connected_apps').selectAll().orderBy('id');
  return withStoreConstraintErrors('connectedApps', {
    async create(app) {
      // The row id is part of each secret's context, so the row is inserted first and sealed right after, in one
      // transaction: no half-written row is ever visible.
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
        const values = app.organizationValues ?? {};
        return trx
          .updateTable('connected_apps')
          .set({
            headers_secret: secrets.seal(JSON.stringify(app.headers), headersContext(id)),
            organization_values_secret:
              Object.keys(values).length === 0
                ? null
                : secrets.seal(JSON.stringify(values), valuesContext(id)),
          })
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirstOrThrow();
      });
      return toRecord(row);
    },
    async get(id) {
      const row = await db.selectFrom('connected_apps').selectAll().where('id', '=', id).executeTakeFirst();
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

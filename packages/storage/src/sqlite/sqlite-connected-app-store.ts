import type { ConnectedAppRecord } from '../connected-app.ts';
import { DEFAULT_ORGANIZATION_ID } from '../organization.ts';
import type { ConnectedAppStore } from '../storage.ts';
import { inTransaction, type SqliteContext, withConstraintErrors } from './sqlite-context.ts';

interface ConnectedAppRow {
  id: number;
  user_id: string | null;
  organization_id: string;
  name: string;
  url_patterns_json: string;
  actions_json: string;
  headers_secret: string;
  organization_values_secret: string | null;
  enabled: number;
  created_at: string;
}

/** Connected apps over SQLite: headers and values sealed per row and column, per-user values per user. */
export function createSqliteConnectedAppStore(context: SqliteContext): ConnectedAppStore {
  const { database, secrets } = context;
  const insert = database.prepare(`INSERT INTO connected_apps
    (user_id, organization_id, name, url_patterns_json, actions_json, headers_secret, organization_values_secret,
     enabled, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const setSecrets = database.prepare(
    'UPDATE connected_apps SET headers_secret = ?, organization_values_secret = ? WHERE id = ?',
  );
  const selectById = database.prepare('SELECT * FROM connected_apps WHERE id = ?');
  const selectSome = database.prepare(`SELECT * FROM connected_apps
    WHERE (?1 IS NULL OR organization_id = ?1) AND (?2 IS NULL OR user_id IS NULL OR user_id = ?2) ORDER BY id`);
  const deleteById = database.prepare('DELETE FROM connected_apps WHERE id = ?');
  const upsertValues =
    database.prepare(`INSERT INTO connected_app_user_values (app_id, user_id, values_secret, updated_at)
    VALUES (?, ?, ?, ?) ON CONFLICT (app_id, user_id) DO UPDATE SET
    values_secret = excluded.values_secret, updated_at = excluded.updated_at`);
  const selectValues = database.prepare(
    'SELECT values_secret FROM connected_app_user_values WHERE app_id = ? AND user_id = ?',
  );
  const headersContext = (id: number) => `connected_apps.headers_secret:${id}`;
  const valuesContext = (id: number) => `connected_apps.organization_values_secret:${id}`;
  const userValuesContext = (appId: number, userId: string) =>
    `connected_app_user_values.values_secret:${appId}:${userId}`;
  const toRecord = (row: ConnectedAppRow): ConnectedAppRecord => ({
    id: row.id,
    userId: row.user_id,
    organizationId: row.organization_id,
    name: row.name,
    urlPatterns: JSON.parse(row.url_patterns_json) as string[],
    actions: JSON.parse(row.actions_json) as ConnectedAppRecord['actions'],
    headers: JSON.parse(secrets.open(row.headers_secret, headersContext(row.id))) as Record<string, string>,
    organizationValues:
      row.organization_values_secret === null
        ? {}
        : (JSON.parse(secrets.open(row.organization_values_secret, valuesContext(row.id))) as Record<
            string,
            string
          >),
    enabled: row.enabled === 1,
    createdAt: row.created_at,
  });
  return {
    async create(app) {
      // The row id is part of each secret's context, so the row is inserted first and sealed right after.
      const id = withConstraintErrors('Adding a connected app', () =>
        inTransaction(database, () => {
          const result = insert.run(
            app.userId,
            app.organizationId ?? DEFAULT_ORGANIZATION_ID,
            app.name,
            JSON.stringify(app.urlPatterns),
            JSON.stringify(app.actions ?? []),
            '',
            null,
            app.enabled === false ? 0 : 1,
            context.now(),
          );
          const rowId = Number(result.lastInsertRowid);
          const values = app.organizationValues ?? {};
          setSecrets.run(
            secrets.seal(JSON.stringify(app.headers), headersContext(rowId)),
            Object.keys(values).length === 0
              ? null
              : secrets.seal(JSON.stringify(values), valuesContext(rowId)),
            rowId,
          );
          return rowId;
        }),
      );
      return toRecord(selectById.get(id) as unknown as ConnectedAppRow);
    },
    async get(id) {
      const row = selectById.get(id) as ConnectedAppRow | undefined;
      return row && toRecord(row);
    },
    async list(options = {}) {
      const rows = selectSome.all(
        options.organizationId ?? null,
        options.userId ?? null,
      ) as unknown as ConnectedAppRow[];
      return rows.map(toRecord);
    },
    async delete(id) {
      return Number(deleteById.run(id).changes) > 0;
    },
    async setUserValues({ appId, userId, values }) {
      withConstraintErrors('Saving connected app values', () =>
        upsertValues.run(
          appId,
          userId,
          secrets.seal(JSON.stringify(values), userValuesContext(appId, userId)),
          context.now(),
        ),
      );
    },
    async getUserValues({ appId, userId }) {
      const row = selectValues.get(appId, userId) as { values_secret: string } | undefined;
      if (row === undefined) return undefined;
      return JSON.parse(secrets.open(row.values_secret, userValuesContext(appId, userId))) as Record<
        string,
        string
      >;
    },
  };
}

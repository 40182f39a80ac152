import type { ConnectedAppRecord, ConnectedAppStore } from '@toolbus/storage';
import { isoTime, type PostgresContext, withConstraintErrors } from './postgres-context.ts';

interface ConnectedAppRow {
  id: number;
  user_id: string | null;
  name: string;
  url_patterns: string[];
  actions: ConnectedAppRecord['actions'];
  headers_secret: string;
  organization_values_secret: string | null;
  enabled: boolean;
  created_at: Date;
}

const columns =
  'id, user_id, name, url_patterns_json AS url_patterns, actions_json AS actions, headers_secret, organization_values_secret, enabled, created_at';

/** Connected apps over PostgreSQL: headers and values sealed per row and column, per-user values per user. */
export function createPostgresConnectedAppStore(context: PostgresContext): ConnectedAppStore {
  const { pool, secrets } = context;
  const headersContext = (id: number) => `connected_apps.headers_secret:${id}`;
  const valuesContext = (id: number) => `connected_apps.organization_values_secret:${id}`;
  const userValuesContext = (appId: number, userId: string) =>
    `connected_app_user_values.values_secret:${appId}:${userId}`;
  const toRecord = (row: ConnectedAppRow): ConnectedAppRecord => ({
    id: row.id,
    userId: row.user_id,
    name: row.name,
    urlPatterns: row.url_patterns,
    actions: row.actions,
    headers: JSON.parse(secrets.open(row.headers_secret, headersContext(row.id))) as Record<string, string>,
    organizationValues:
      row.organization_values_secret === null
        ? {}
        : (JSON.parse(secrets.open(row.organization_values_secret, valuesContext(row.id))) as Record<
            string,
            string
          >),
    enabled: row.enabled,
    createdAt: isoTime(row.created_at),
  });
  return {
    async create(app) {
      // The row id is part of each secret's context, so the id is taken from the sequence first and the row is
      // inserted with its secrets already sealed: no half-written row is ever visible.
      const row = await withConstraintErrors('Adding a connected app', async () => {
        const { rows: ids } = await pool.query<{ id: number }>(
          "SELECT nextval(pg_get_serial_sequence('connected_apps', 'id'))::integer AS id",
        );
        const id = ids[0]!.id;
        const values = app.organizationValues ?? {};
        const { rows } = await pool.query<ConnectedAppRow>(
          `INSERT INTO connected_apps (id, user_id, name, url_patterns_json, actions_json, headers_secret,
             organization_values_secret, enabled, created_at)
           OVERRIDING SYSTEM VALUE VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6, $7, $8, $9) RETURNING ${columns}`,
          [
            id,
            app.userId,
            app.name,
            JSON.stringify(app.urlPatterns),
            JSON.stringify(app.actions ?? []),
            secrets.seal(JSON.stringify(app.headers), headersContext(id)),
            Object.keys(values).length === 0 ? null : secrets.seal(JSON.stringify(values), valuesContext(id)),
            app.enabled !== false,
            context.now(),
          ],
        );
        return rows[0]!;
      });
      return toRecord(row);
    },
    async get(id) {
      const { rows } = await pool.query<ConnectedAppRow>(
        `SELECT ${columns} FROM connected_apps WHERE id = $1`,
        [id],
      );
      return rows[0] && toRecord(rows[0]);
    },
    async list(options = {}) {
      const { rows } =
        options.userId === undefined
          ? await pool.query<ConnectedAppRow>(`SELECT ${columns} FROM connected_apps ORDER BY id`)
          : await pool.query<ConnectedAppRow>(
              `SELECT ${columns} FROM connected_apps WHERE user_id IS NULL OR user_id = $1 ORDER BY id`,
              [options.userId],
            );
      return rows.map(toRecord);
    },
    async delete(id) {
      return ((await pool.query('DELETE FROM connected_apps WHERE id = $1', [id])).rowCount ?? 0) > 0;
    },
    async setUserValues({ appId, userId, values }) {
      await withConstraintErrors('Saving connected app values', () =>
        pool.query(
          `INSERT INTO connected_app_user_values (app_id, user_id, values_secret, updated_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (app_id, user_id) DO UPDATE SET
             values_secret = excluded.values_secret, updated_at = excluded.updated_at`,
          [
            appId,
            userId,
            secrets.seal(JSON.stringify(values), userValuesContext(appId, userId)),
            context.now(),
          ],
        ),
      );
    },
    async getUserValues({ appId, userId }) {
      const { rows } = await pool.query<{ values_secret: string }>(
        'SELECT values_secret FROM connected_app_user_values WHERE app_id = $1 AND user_id = $2',
        [appId, userId],
      );
      if (!rows[0]) return undefined;
      return JSON.parse(secrets.open(rows[0].values_secret, userValuesContext(appId, userId))) as Record<
        string,
        string
      >;
    },
  };
}

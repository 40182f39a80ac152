import { DEFAULT_ORGANIZATION_ID } from '../organization.ts';
import { camelColumns } from '../sql/camel-columns.ts';
import { deleteRows, type StoreContext, withStoreConstraintErrors } from '../sql/store-context.ts';
import type { AccessStore } from '../storage.ts';

// Each a row of its table with its scopes parsed.
const keyColumns = camelColumns(
  'id',
  'user_id',
  'organization_id',
  'name',
  'prefix',
  'key_hash',
  'scopes_json',
  'created_at',
  'last_used_at',
  'revoked_at',
);
const sessionColumns = camelColumns(
  'token_hash',
  'user_id',
  'organization_id',
  'key_id',
  'scopes_json',
  'csrf_hash',
  'created_at',
  'expires_at',
);

export function createAccessStore(context: StoreContext): AccessStore {
  const { db } = context;
  const keys = () => db.selectFrom('api_keys').select(keyColumns);
  return withStoreConstraintErrors('access', {
    async createApiKey(key) {
      const row = await db
        .insertInto('api_keys')
        .values({
          id: context.newId(),
          user_id: key.userId,
          organization_id: key.organizationId ?? DEFAULT_ORGANIZATION_ID,
          name: key.name,
          prefix: key.prefix,
          key_hash: key.keyHash,
          scopes_json: JSON.stringify(key.scopes),
          created_at: context.now(),
        })
        .returning(keyColumns)
        .executeTakeFirstOrThrow();
      return withScopes(row);
    },
    async getApiKey(by) {
      const query =
        typeof by === 'string' ? keys().where('id', '=', by) : keys().where('key_hash', '=', by.keyHash);
      const row = await query.executeTakeFirst();
      return row && withScopes(row);
    },
    async listApiKeys(userId) {
      const rows = await keys().where('user_id', '=', userId).orderBy(context.oldestFirst).execute();
      return rows.map(withScopes);
    },
    async revokeApiKey(id) {
      // The key's sessions end with it.
      return context.transaction(async (trx) => {
        const result = await trx
          .updateTable('api_keys')
          .set({ revoked_at: context.now() })
          .where('id', '=', id)
          .where('revoked_at', 'is', null)
          .executeTakeFirst();
        await trx.deleteFrom('web_sessions').where('key_id', '=', id).execute();
        return result.numUpdatedRows > 0n;
      });
    },
    async touchApiKey(id) {
      await db.updateTable('api_keys').set({ last_used_at: context.now() }).where('id', '=', id).execute();
    },
    async createSession(session) {
      const now = context.now();
      await db.deleteFrom('web_sessions').where('expires_at', '<=', now).execute();
      const row = await db
        .insertInto('web_sessions')
        .values({
          token_hash: session.tokenHash,
          user_id: session.userId,
          organization_id: session.organizationId ?? null,
          key_id: session.keyId ?? null,
          scopes_json: JSON.stringify(session.scopes),
          csrf_hash: session.csrfHash,
          created_at: now,
          expires_at: session.expiresAt,
        })
        .returning(sessionColumns)
        .executeTakeFirstOrThrow();
      return withScopes(row);
    },
    async getSession(tokenHash) {
      const row = await db
        .selectFrom('web_sessions')
        .select(sessionColumns)
        .where('token_hash', '=', tokenHash)
        .where('expires_at', '>', context.now())
        .executeTakeFirst();
      return row && withScopes(row);
    },
    async deleteSession(tokenHash) {
      return deleteRows(db, 'web_sessions', { token_hash: tokenHash });
    },
  });
}

function withScopes<Row extends { scopesJson: string }>({
  scopesJson,
  ...row
}: Row): Omit<Row, 'scopesJson'> & { scopes: string[] } {
  return { ...row, scopes: JSON.parse(scopesJson) as string[] };
}

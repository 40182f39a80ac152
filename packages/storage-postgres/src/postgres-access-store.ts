import {
  type AccessStore,
  type ApiKeyRecord,
  DEFAULT_ORGANIZATION_ID,
  type WebSessionRecord,
} from '@toolbus/storage';
import { isoTime, isoTimeOrNull, type PostgresContext, withConstraintErrors } from './postgres-context.ts';

interface ApiKeyRow {
  id: string;
  user_id: string;
  organization_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  scopes: string[];
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

interface SessionRow {
  token_hash: string;
  user_id: string;
  organization_id: string | null;
  csrf_hash: string;
  created_at: Date;
  expires_at: Date;
}

const keyColumns =
  'id, user_id, organization_id, name, prefix, key_hash, scopes_json AS scopes, created_at, last_used_at, revoked_at';

/** API keys and web sessions over PostgreSQL (hashes only). */
export function createPostgresAccessStore(context: PostgresContext): AccessStore {
  const { pool } = context;
  const selectKey = async (where: string, value: string): Promise<ApiKeyRecord | undefined> => {
    const { rows } = await pool.query<ApiKeyRow>(`SELECT ${keyColumns} FROM api_keys WHERE ${where} = $1`, [
      value,
    ]);
    return rows[0] && toKey(rows[0]);
  };
  return {
    async createApiKey(key) {
      const { rows } = await withConstraintErrors('Creating an API key', () =>
        pool.query<ApiKeyRow>(
          `INSERT INTO api_keys (id, user_id, organization_id, name, prefix, key_hash, scopes_json, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8) RETURNING ${keyColumns}`,
          [
            context.newId(),
            key.userId,
            key.organizationId ?? DEFAULT_ORGANIZATION_ID,
            key.name,
            key.prefix,
            key.hash,
            JSON.stringify(key.scopes),
            context.now(),
          ],
        ),
      );
      return toKey(rows[0]!);
    },
    findApiKeyByHash: (hash) => selectKey('key_hash', hash),
    getApiKey: (id) => selectKey('id', id),
    async listApiKeys(userId) {
      const { rows } = await pool.query<ApiKeyRow>(
        `SELECT ${keyColumns} FROM api_keys WHERE user_id = $1 ORDER BY created_at, ordinal`,
        [userId],
      );
      return rows.map(toKey);
    },
    async revokeApiKey(id) {
      const result = await pool.query(
        'UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL',
        [context.now(), id],
      );
      return (result.rowCount ?? 0) > 0;
    },
    async touchApiKey(id) {
      await pool.query('UPDATE api_keys SET last_used_at = $1 WHERE id = $2', [context.now(), id]);
    },
    async createSession(session) {
      const now = context.now();
      await pool.query('DELETE FROM web_sessions WHERE expires_at <= $1', [now]);
      await withConstraintErrors('Creating a session', () =>
        pool.query(
          'INSERT INTO web_sessions (token_hash, user_id, organization_id, csrf_hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
          [
            session.tokenHash,
            session.userId,
            session.organizationId ?? null,
            session.csrfHash,
            now,
            session.expiresAt,
          ],
        ),
      );
      return { ...session, organizationId: session.organizationId ?? null, createdAt: now };
    },
    async getSession(tokenHash) {
      const { rows } = await pool.query<SessionRow>(
        'SELECT token_hash, user_id, organization_id, csrf_hash, created_at, expires_at FROM web_sessions WHERE token_hash = $1 AND expires_at > $2',
        [tokenHash, context.now()],
      );
      return rows[0] && toSession(rows[0]);
    },
    async deleteSession(tokenHash) {
      return (
        ((await pool.query('DELETE FROM web_sessions WHERE token_hash = $1', [tokenHash])).rowCount ?? 0) > 0
      );
    },
  };
}

function toKey(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    userId: row.user_id,
    organizationId: row.organization_id,
    name: row.name,
    prefix: row.prefix,
    hash: row.key_hash,
    scopes: row.scopes,
    createdAt: isoTime(row.created_at),
    lastUsedAt: isoTimeOrNull(row.last_used_at),
    revokedAt: isoTimeOrNull(row.revoked_at),
  };
}

function toSession(row: SessionRow): WebSessionRecord {
  return {
    tokenHash: row.token_hash,
    userId: row.user_id,
    organizationId: row.organization_id,
    csrfHash: row.csrf_hash,
    createdAt: isoTime(row.created_at),
    expiresAt: isoTime(row.expires_at),
  };
}

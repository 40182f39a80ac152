import type { ApiKeyRecord, WebSessionRecord } from '../access.ts';
import { DEFAULT_ORGANIZATION_ID } from '../organization.ts';
import type { AccessStore } from '../storage.ts';
import { inTransaction, type SqliteContext, withConstraintErrors } from './sqlite-context.ts';

interface ApiKeyRow {
  id: string;
  user_id: string;
  organization_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  scopes_json: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

interface SessionRow {
  token_hash: string;
  user_id: string;
  organization_id: string | null;
  key_id: string | null;
  scopes_json: string;
  csrf_hash: string;
  created_at: string;
  expires_at: string;
}

/** API keys and web sessions over SQLite (hashes only). */
export function createSqliteAccessStore(context: SqliteContext): AccessStore {
  const { database } = context;
  const insertKey = database.prepare(
    'INSERT INTO api_keys (id, user_id, organization_id, name, prefix, key_hash, scopes_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const selectKeyByHash = database.prepare('SELECT * FROM api_keys WHERE key_hash = ?');
  const selectKey = database.prepare('SELECT * FROM api_keys WHERE id = ?');
  const selectKeys = database.prepare('SELECT * FROM api_keys WHERE user_id = ? ORDER BY created_at, rowid');
  const revokeKey = database.prepare(
    'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL',
  );
  const touchKey = database.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?');
  const insertSession = database.prepare(
    'INSERT INTO web_sessions (token_hash, user_id, organization_id, key_id, scopes_json, csrf_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const deleteSessionsOfKey = database.prepare('DELETE FROM web_sessions WHERE key_id = ?');
  const selectSession = database.prepare(
    'SELECT * FROM web_sessions WHERE token_hash = ? AND expires_at > ?',
  );
  const deleteSession = database.prepare('DELETE FROM web_sessions WHERE token_hash = ?');
  const deleteExpired = database.prepare('DELETE FROM web_sessions WHERE expires_at <= ?');
  return {
    async createApiKey(key) {
      const id = context.newId();
      withConstraintErrors('Creating an API key', () =>
        insertKey.run(
          id,
          key.userId,
          key.organizationId ?? DEFAULT_ORGANIZATION_ID,
          key.name,
          key.prefix,
          key.hash,
          JSON.stringify(key.scopes),
          context.now(),
        ),
      );
      return toKey(selectKey.get(id) as unknown as ApiKeyRow);
    },
    async findApiKeyByHash(hash) {
      const row = selectKeyByHash.get(hash) as ApiKeyRow | undefined;
      return row && toKey(row);
    },
    async getApiKey(id) {
      const row = selectKey.get(id) as ApiKeyRow | undefined;
      return row && toKey(row);
    },
    async listApiKeys(userId) {
      return (selectKeys.all(userId) as unknown as ApiKeyRow[]).map(toKey);
    },
    async revokeApiKey(id) {
      return inTransaction(database, () => {
        const revoked = Number(revokeKey.run(context.now(), id).changes) > 0;
        deleteSessionsOfKey.run(id);
        return revoked;
      });
    },
    async touchApiKey(id) {
      touchKey.run(context.now(), id);
    },
    async createSession(session) {
      const now = context.now();
      deleteExpired.run(now);
      withConstraintErrors('Creating a session', () =>
        insertSession.run(
          session.tokenHash,
          session.userId,
          session.organizationId ?? null,
          session.keyId ?? null,
          JSON.stringify(session.scopes),
          session.csrfHash,
          now,
          session.expiresAt,
        ),
      );
      return {
        ...session,
        organizationId: session.organizationId ?? null,
        keyId: session.keyId ?? null,
        createdAt: now,
      };
    },
    async getSession(tokenHash) {
      const row = selectSession.get(tokenHash, context.now()) as SessionRow | undefined;
      return row && toSession(row);
    },
    async deleteSession(tokenHash) {
      return Number(deleteSession.run(tokenHash).changes) > 0;
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
    scopes: JSON.parse(row.scopes_json) as string[],
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

function toSession(row: SessionRow): WebSessionRecord {
  return {
    tokenHash: row.token_hash,
    userId: row.user_id,
    organizationId: row.organization_id,
    keyId: row.key_id,
    scopes: JSON.parse(row.scopes_json) as string[],
    csrfHash: row.csrf_hash,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}

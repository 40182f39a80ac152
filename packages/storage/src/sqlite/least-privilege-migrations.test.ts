import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, test } from 'node:test';
import { openStorage } from '../open-storage.ts';
import { migrate } from '../sql/migrate.ts';
import { storageMigrations } from '../sql/migrations.ts';
import { sqliteMigrationTarget } from '../sql/sqlite-migration-target.ts';

// The schema steps of issue 28, applied to a database written before them.
const directory = mkdtempSync(join(tmpdir(), 'toolbus-least-privilege-'));
after(() => rmSync(directory, { recursive: true, force: true }));
const key = randomBytes(32).toString('base64');

describe('least-privilege migrations (SQLite)', () => {
  test('sessions from before end; admin keys gain the keys scope, others do not; apps go to the default organisation', async () => {
    const path = join(directory, 'before.db');
    const database = new DatabaseSync(path);
    await migrate(sqliteMigrationTarget(database), storageMigrations.slice(0, 12));
    for (const sql of [
      "INSERT INTO users (id, email, role, created_at) VALUES ('u1', 'a@example.com', 'admin', '2026-01-01')",
      `INSERT INTO api_keys (id, user_id, name, prefix, key_hash, scopes_json, created_at)
       VALUES ('admin-key', 'u1', 'a', 'tb_a', 'h1', '["chat","admin"]', '2026-01-01')`,
      `INSERT INTO api_keys (id, user_id, name, prefix, key_hash, scopes_json, created_at)
       VALUES ('chat-key', 'u1', 'c', 'tb_c', 'h2', '["chat"]', '2026-01-01')`,
      `INSERT INTO web_sessions (token_hash, user_id, csrf_hash, created_at, expires_at)
       VALUES ('t', 'u1', 'c', '2026-01-01', '2999-01-01')`,
      `INSERT INTO connected_apps (user_id, name, url_patterns_json, headers_secret, created_at)
       VALUES (NULL, 'crm', '[]', 'sealed', '2026-01-01')`,
    ])
      database.prepare(sql).run();
    database.close();
    const storage = await openStorage({ path, secretKey: key, environment: {} });
    assert.deepEqual((await storage.access.getApiKey('admin-key'))?.scopes, ['chat', 'admin', 'keys']);
    assert.deepEqual((await storage.access.getApiKey('chat-key'))?.scopes, ['chat']);
    assert.equal(await storage.access.getSession('t'), undefined, 'a session that cannot name its key ends');
    await storage.close();
    const reopened = new DatabaseSync(path);
    assert.deepEqual(
      { ...(reopened.prepare('SELECT organization_id FROM connected_apps').get() as object) },
      { organization_id: 'default' },
    );
    reopened.close();
  });
});

// The helpers every store shares, on a real node:sqlite database: a delete by key never widens to the whole
// table, a store's constraint violations are typed errors naming the method, and a sealed column binds each value
// to its table, column and row.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { createSecretBox } from '../secret-box.ts';
import { sqliteMigrationTarget } from '../sql/sqlite-migration-target.ts';
import { deleteRows, isKeyTaken, upsert, withStoreConstraintErrors } from '../sql/store-context.ts';
import { loadDatabaseSync } from '../sqlite/load-database-sync.ts';
import { isStorageErrorCode } from '../testing/is-storage-error-code.ts';
import { nonEmpty, sealedColumn } from './sealed-column.ts';

test('deleteRows deletes by its key, refuses an empty key, and says whether a row went', async () => {
  const database = new (loadDatabaseSync())(':memory:');
  database.exec(
    'CREATE TABLE settings (key TEXT PRIMARY KEY, value_json TEXT NOT NULL, updated_at TEXT NOT NULL)',
  );
  const db = sqliteMigrationTarget(database).db;
  try {
    for (const key of ['a', 'b'])
      await upsert(db, 'settings', { key }, { value_json: '1', updated_at: 'then' });
    await upsert(db, 'settings', { key: 'a' }, { value_json: '2', updated_at: 'now' });
    const rows = await db.selectFrom('settings').selectAll().orderBy('key').execute();
    assert.deepEqual(
      rows.map((row) => [row.key, row.value_json]),
      [
        ['a', '2'],
        ['b', '1'],
      ],
    );
    await assert.rejects(deleteRows(db, 'settings', {}), isStorageErrorCode('invalid_input'));
    assert.equal((await db.selectFrom('settings').selectAll().execute()).length, 2);
    assert.equal(await deleteRows(db, 'settings', { key: 'a' }), true);
    assert.equal(await deleteRows(db, 'settings', { key: 'a' }), false);
    assert.deepEqual(await db.selectFrom('settings').select('key').execute(), [{ key: 'b' }]);
  } finally {
    await db.destroy();
  }
});

test("a store's constraint violations are typed and name the method; other errors pass unchanged", async () => {
  const database = new (loadDatabaseSync())(':memory:');
  database.exec(
    'CREATE TABLE settings (key TEXT PRIMARY KEY, value_json TEXT NOT NULL, updated_at TEXT NOT NULL)',
  );
  const db = sqliteMigrationTarget(database).db;
  const unexpected = new Error('not a constraint');
  const insert = (key: string, value_json: string) =>
    db.insertInto('settings').values({ key, value_json, updated_at: 'now' }).execute();
  const store = withStoreConstraintErrors('things', {
    add: async (key: string) => insert(key, '1'),
    addNull: async (key: string) => insert(key, null as unknown as string),
    fail: async () => {
      throw unexpected;
    },
  });
  try {
    await store.add('a');
    assert.equal(await insert('a', '2').catch(isKeyTaken), true);
    await assert.rejects(store.add('a'), (error: unknown) => {
      assert.ok(isStorageErrorCode('conflict')(error));
      assert.equal((error as Error).message, 'things.add: a row with the same key exists.');
      return true;
    });
    await assert.rejects(store.addNull('b'), (error: unknown) => {
      assert.ok(isStorageErrorCode('invalid_input')(error));
      assert.equal((error as Error).message, 'things.addNull: the values break a schema rule.');
      return true;
    });
    await assert.rejects(store.fail(), (error: unknown) => error === unexpected);
  } finally {
    await db.destroy();
  }
});

test('a sealed column opens its own values only, and keeps an absent or empty map absent', () => {
  const secrets = createSecretBox(randomBytes(32));
  const headers = sealedColumn<Record<string, string>>(secrets, 'mcp_servers.headers_secret');
  const sealed = headers.seal('row-1', { authorization: 'Bearer x' });
  assert.deepEqual(headers.open('row-1', sealed), { authorization: 'Bearer x' });
  // The context is exactly `table.column:row`, as every release sealed it.
  assert.equal(secrets.open(sealed, 'mcp_servers.headers_secret:row-1'), '{"authorization":"Bearer x"}');
  assert.throws(() => headers.open('row-2', sealed), isStorageErrorCode('secret_undecryptable'));
  const other = sealedColumn<Record<string, string>>(secrets, 'mcp_servers.environment_secret');
  assert.throws(() => other.open('row-1', sealed), isStorageErrorCode('secret_undecryptable'));
  assert.equal(headers.seal('row-1', undefined), null);
  assert.equal(headers.seal('row-1', nonEmpty({})), null);
  assert.equal(headers.open('row-1', null), undefined);
  const text = sealedColumn<string>(secrets, 'mcp_servers.api_key_secret', {
    stringify: String,
    parse: String,
  });
  assert.equal(secrets.open(text.seal(7, 'key'), 'mcp_servers.api_key_secret:7'), 'key');
});

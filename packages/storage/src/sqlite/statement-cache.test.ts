// The SQLite connection's one statement cache, which the builder and the packet streams share: each text prepared
// once, and PostgreSQL's numbered parameters (the SQL both databases run) bound by their number, not their order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sqliteMigrationTarget } from '../sql/sqlite-migration-target.ts';
import { loadDatabaseSync } from './load-database-sync.ts';

test('a text is prepared once; $1, $2 bind by number wherever they stand', async () => {
  const target = sqliteMigrationTarget(new (loadDatabaseSync())(':memory:'));
  try {
    const text = 'SELECT $2 AS second, $1 AS first, $2 AS again';
    assert.equal(target.prepare(text), target.prepare(text));
    // Left as SQLite's own `$name` parameters, they would not bind by their number (node:sqlite refuses them).
    assert.deepEqual({ ...target.prepare(text).get('a', 'b') }, { second: 'b', first: 'a', again: 'b' });
  } finally {
    await target.db.destroy();
  }
});

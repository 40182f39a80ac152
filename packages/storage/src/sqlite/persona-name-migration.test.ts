// Migration 12 makes persona names unique: a database written before it, holding duplicates, must still open.
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { migrate } from '../sql/migrate.ts';
import { storageMigrations } from '../sql/migrations.ts';
import { sqliteMigrationTarget } from '../sql/sqlite-migration-target.ts';

test('migration 12 renames later duplicate persona names deterministically and then indexes the names', async () => {
  const database = new DatabaseSync(':memory:');
  const before = storageMigrations.findIndex((migration) =>
    migration.name.startsWith('persona names are unique'),
  );
  assert.ok(before > 0);
  await migrate(sqliteMigrationTarget(database), storageMigrations.slice(0, before));
  const insert = database.prepare('INSERT INTO personas (id, name, created_at) VALUES (?, ?, ?)');
  insert.run('p-old', 'Support', '2026-01-01T00:00:00.000Z');
  insert.run('p-new', 'support ', '2026-01-03T00:00:00.000Z');
  insert.run('p-mid', ' SUPPORT', '2026-01-02T00:00:00.000Z');
  insert.run('p-taken', 'support (2)', '2026-01-04T00:00:00.000Z');
  insert.run('p-other', 'Research', '2026-01-01T00:00:00.000Z');
  await migrate(sqliteMigrationTarget(database), storageMigrations);
  const names = Object.fromEntries(
    (database.prepare('SELECT id, name FROM personas').all() as { id: string; name: string }[]).map((row) => [
      row.id,
      row.name,
    ]),
  );
  assert.deepEqual(names, {
    'p-old': 'Support',
    'p-mid': 'SUPPORT (2)',
    'p-new': 'support (3)',
    // Its own name was taken by the rename: the id makes it unique.
    'p-taken': 'support (2) p-taken',
    'p-other': 'Research',
  });
  // From now on the key is unique.
  assert.throws(
    () =>
      database
        .prepare(
          "INSERT INTO personas (id, name, name_key, created_at) VALUES ('p-again', 'x', 'support', '')",
        )
        .run(),
    /UNIQUE constraint failed/,
  );
});

// Migration 6 makes persona names unique: a database written before it, holding duplicates, must still migrate.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { storageMigrations } from '@toolbus/storage';
import { migrate } from '@toolbus/storage/backend';
import pg from 'pg';
import { postgresMigrationTarget } from './postgres-migration-target.ts';
import { startTestPostgres, type TestPostgres } from './testing/start-test-postgres.ts';

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster.stop());

test('migration 6 renames later duplicate persona names deterministically and then indexes the names', async () => {
  const pool = new pg.Pool({ connectionString: await cluster.createDatabase() });
  // As the storage's own pool: a connection the cluster's fast shutdown closes is no failure of this test.
  pool.on('error', () => {});
  try {
    const step = storageMigrations.findIndex((migration) =>
      migration.name.startsWith('persona names are unique'),
    );
    assert.ok(step > 0);
    await migrate(postgresMigrationTarget(pool), storageMigrations.slice(0, step));
    const insert = (id: string, name: string, at: string) =>
      pool.query('INSERT INTO personas (id, name, created_at) VALUES ($1, $2, $3)', [id, name, at]);
    await insert('p-old', 'Support', '2026-01-01T00:00:00.000Z');
    await insert('p-new', 'support ', '2026-01-03T00:00:00.000Z');
    await insert('p-mid', ' SUPPORT', '2026-01-02T00:00:00.000Z');
    await insert('p-taken', 'support (2)', '2026-01-04T00:00:00.000Z');
    await insert('p-other', 'Research', '2026-01-01T00:00:00.000Z');
    await migrate(postgresMigrationTarget(pool), storageMigrations);
    const { rows } = await pool.query<{ id: string; name: string }>('SELECT id, name FROM personas');
    assert.deepEqual(Object.fromEntries(rows.map((row) => [row.id, row.name])), {
      'p-old': 'Support',
      'p-mid': 'SUPPORT (2)',
      'p-new': 'support (3)',
      // Its own name was taken by the rename: the id makes it unique.
      'p-taken': 'support (2) p-taken',
      'p-other': 'Research',
    });
    await assert.rejects(
      pool.query(
        "INSERT INTO personas (id, name, name_key, created_at) VALUES ('p-again', 'x', 'support', now())",
      ),
      /duplicate key/,
    );
  } finally {
    await pool.end();
  }
});

// Turns the releases' SQL dumps (what make-release-fixtures.ts wrote until e27dd35) into the artifacts the upgrade
// test reads now: `sqlite.db`, the SQLite file itself (the dump loaded into a new file, in WAL mode as the release
// kept it), and `postgres.dump`, the PostgreSQL database in pg_dump's custom format (the dump restored into a new
// database, then dumped with `pg_dump -Fc`). Each is checked to hold byte-for-byte the rows of its SQL dump.
// Run once per release directory: node --conditions=development sql-dumps-to-artifacts.ts release-8a78985
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { startTestPostgres } from '../testing/start-test-postgres.ts';

const release = process.argv[2] ?? 'release-8a78985';
const directory = join(import.meta.dirname, release);
const dumpOf = (name: string) =>
  execFileSync('git', ['show', `e27dd35:packages/storage-postgres/src/__fixtures__/${release}/${name}`], {
    maxBuffer: 1 << 26,
  }).toString();

const sqliteSql = dumpOf('sqlite.sql');
const database = new DatabaseSync(join(directory, 'sqlite.db'));
database.exec(sqliteSql);
database.exec('PRAGMA journal_mode = WAL;');
database.close();

/** Every row of every table with its rowid (the tie-break of rows written in one millisecond). */
function sqliteRows(copy: DatabaseSync): unknown {
  const tables = copy.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all();
  return tables.map(({ name }) => [name, copy.prepare(`SELECT rowid AS "(rowid)", * FROM "${name}" ORDER BY rowid`).all()]);
}
const fromDump = new DatabaseSync(':memory:');
fromDump.exec(sqliteSql);
const file = new DatabaseSync(join(directory, 'sqlite.db'), { readOnly: true });
assert.deepEqual(sqliteRows(file), sqliteRows(fromDump));
assert.ok((sqliteRows(file) as unknown[]).length >= 24);
file.close();

const withoutMeta = (dump: string) =>
  dump
    .split('\n')
    .filter((line) => !line.startsWith('\\') && !line.startsWith('-- Dumped'))
    .join('\n');
const cluster = await startTestPostgres();
try {
  const url = await cluster.createDatabase();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(withoutMeta(dumpOf('postgres.sql')));
  await client.end();
  const pgDump = join(cluster.binDirectory, 'pg_dump');
  execFileSync(pgDump, ['-Fc', '--no-owner', '--no-privileges', '-f', join(directory, 'postgres.dump'), url]);
  const restored = await cluster.createDatabase();
  execFileSync(join(cluster.binDirectory, 'pg_restore'), ['--no-owner', '--no-privileges', '-d', restored, join(directory, 'postgres.dump')]);
  const asInserts = (target: string) =>
    withoutMeta(execFileSync(pgDump, ['--inserts', '--no-owner', '--no-privileges', target]).toString());
  assert.equal(asInserts(restored), withoutMeta(dumpOf('postgres.sql')));
} finally {
  await cluster.stop();
}

// A fresh SQLite file and a fresh PostgreSQL database get exactly the schema storage's migrations gave them before
// the released steps were declared once (tables, columns, types, defaults, CHECKs, keys, indexes, sequences):
// __fixtures__/fresh-schema.json, written with main's code by __fixtures__/make-schema-reference.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { openStorage } from '@toolbus/storage';
import { openPostgresStorage } from './open-postgres-storage.ts';
import { postgresSchemaOf, sqliteSchemaOf } from './testing/schema-of.ts';
import { startTestPostgres, type TestPostgres } from './testing/start-test-postgres.ts';

const reference = JSON.parse(
  readFileSync(join(import.meta.dirname, '__fixtures__', 'fresh-schema.json'), 'utf8'),
);
const secretKey = Buffer.alloc(32, 7).toString('base64');
const root = mkdtempSync(join(tmpdir(), 'toolbus-fresh-schema-'));
let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(async () => {
  await cluster.stop();
  rmSync(root, { recursive: true, force: true });
});

test('a fresh SQLite file gets the reference schema', async () => {
  const path = join(root, 'fresh.db');
  await (await openStorage({ path, secretKey, environment: {} })).close();
  assert.deepEqual(sqliteSchemaOf(path), reference.sqlite);
});

test('a fresh PostgreSQL database gets the reference schema', async () => {
  const url = await cluster.createDatabase();
  await (await openPostgresStorage({ url, secretKey, environment: {} })).close();
  assert.deepEqual(JSON.parse(JSON.stringify(await postgresSchemaOf(url))), reference.postgres);
});

// A fresh SQLite file and a fresh PostgreSQL database get exactly the schema storage's migrations gave them before
// the released steps were declared once (tables, columns, types, defaults, CHECKs, keys, indexes, sequences):
// __fixtures__/fresh-schema.json, written with main's code by __fixtures__/make-schema-reference.ts, and since
// rewritten by it only for steps added after (19: chat_turns.end_token, the file's one change then).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  freshPostgresSchema,
  freshSqliteSchema,
  schemaTestDatabases,
} from './__fixtures__/schema-databases.ts';

const reference = JSON.parse(
  readFileSync(join(import.meta.dirname, '__fixtures__', 'fresh-schema.json'), 'utf8'),
);
const secretKey = Buffer.alloc(32, 7).toString('base64');
const databases = schemaTestDatabases('fresh-schema');

test('a fresh SQLite file gets the reference schema', async () => {
  assert.deepEqual(await freshSqliteSchema(databases.file('fresh.db'), secretKey), reference.sqlite);
});

test('a fresh PostgreSQL database gets the reference schema', async () => {
  assert.deepEqual(await freshPostgresSchema(databases.cluster(), secretKey), reference.postgres);
});

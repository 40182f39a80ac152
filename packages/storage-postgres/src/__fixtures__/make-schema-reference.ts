// Writes fresh-schema.json: the schema a fresh SQLite file and a fresh PostgreSQL database get from storage's
// migrations. Made once with main's code at e27dd35, before the released steps were declared once, so the test
// beside it (fresh-schema.test.ts) proves the one declaration gives every new database exactly that schema.
// Rewritten when a step is appended (19), after checking that the file's diff is that step's change alone.
// Run: node --conditions=development packages/storage-postgres/src/__fixtures__/make-schema-reference.ts
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestPostgres } from '../testing/start-test-postgres.ts';
import { freshPostgresSchema, freshSqliteSchema } from './schema-databases.ts';

const secretKey = Buffer.alloc(32, 7).toString('base64');
const directory = mkdtempSync(join(tmpdir(), 'toolbus-schema-'));
const cluster = await startTestPostgres();
try {
  const reference = {
    sqlite: await freshSqliteSchema(join(directory, 'toolbus.db'), secretKey),
    postgres: await freshPostgresSchema(cluster, secretKey),
  };
  writeFileSync(join(import.meta.dirname, 'fresh-schema.json'), `${JSON.stringify(reference, null, 1)}\n`);
} finally {
  await cluster.stop();
  rmSync(directory, { recursive: true, force: true });
}

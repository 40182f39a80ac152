// The storage conformance suite (the same one the SQLite store runs) against PostgreSQL: one throwaway cluster for
// this file, a fresh database (a copy of a migrated template) for every test.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { describeOrganizationStoreConformance, describeStorageConformance } from '@toolbus/storage/testing';
import pg from 'pg';
import { openPostgresStorage } from './open-postgres-storage.ts';
import { startTestPostgres, type TestPostgres } from './testing/start-test-postgres.ts';

let cluster: TestPostgres;
let template: string;
const secretKey = randomBytes(32).toString('base64');

before(async () => {
  cluster = await startTestPostgres();
  const templateUrl = await cluster.createDatabase();
  await (await openPostgresStorage({ url: templateUrl, secretKey, environment: {} })).close();
  template = cluster.databaseName(templateUrl);
});
after(() => cluster.stop());

const open = (url: string, key = secretKey) => openPostgresStorage({ url, secretKey: key, environment: {} });

describeStorageConformance({
  name: 'PostgreSQL',
  openStorage: async () => open(await cluster.createDatabase({ template })),
  async createDatabase() {
    const url = await cluster.createDatabase({ template });
    return {
      open: (options = {}) => open(url, options.secretKey),
      rawText: () => rawText(url),
    };
  },
});

describeOrganizationStoreConformance('PostgreSQL', async () =>
  open(await cluster.createDatabase({ template })),
);

/**
 * What a reader of the server's disk or of a dump sees: every row as text, the database's files after a checkpoint
 * and the write-ahead log.
 */
async function rawText(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
    );
    let text = '';
    for (const { table_name } of tables.rows) {
      const rows = await client.query<{ row: string }>(
        `SELECT t::text AS row FROM ${client.escapeIdentifier(table_name)} t`,
      );
      text += rows.rows.map((row) => row.row).join('\n');
    }
    await client.query('CHECKPOINT');
    const { rows } = await client.query<{ oid: number }>(
      'SELECT oid FROM pg_database WHERE datname = current_database()',
    );
    for (const directory of [
      join(cluster.dataDirectory, 'base', String(rows[0]!.oid)),
      join(cluster.dataDirectory, 'pg_wal'),
    ]) {
      for (const name of readdirSync(directory)) {
        const path = join(directory, name);
        if (statSync(path).isFile()) text += readFileSync(path).toString('latin1');
      }
    }
    return text;
  } finally {
    await client.end();
  }
}

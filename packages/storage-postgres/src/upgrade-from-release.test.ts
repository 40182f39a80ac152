// SQLite files and PostgreSQL databases written by releases before storage was written once (every store twice,
// per database), with rows in every table, open with today's code, migrate in place, and read back every row as
// that release did; their schema is then the one a fresh database gets. 8a78985: SQLite step 16, PostgreSQL's own
// step 10; 2111d5b: SQLite step 17, PostgreSQL's own step 11 (per-user MCP values). Fixtures: each release's
// SQLite file itself (`sqlite.db`) and its PostgreSQL database as `pg_dump -Fc` (`postgres.dump`, restored with
// pg_restore); how they were made: __fixtures__/make-release-fixtures.ts.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import type { Storage } from '@toolbus/storage';
import { readBackEverything } from '@toolbus/storage/testing';
import pg from 'pg';
import {
  freshPostgresSchema,
  freshSqliteSchema,
  openPostgres,
  openSqlite,
  postgresSchemaAsJson,
  schemaTestDatabases,
} from './__fixtures__/schema-databases.ts';
import { sqliteSchemaOf } from './testing/schema-of.ts';

/** A release's fixtures, and whether it had per-user MCP values. */
const releases = [
  { commit: '8a78985', mcpUserCredentials: false },
  { commit: '2111d5b', mcpUserCredentials: true },
] as const;
type Release = (typeof releases)[number];
const fixturePath = (release: Release, name: string) =>
  join(import.meta.dirname, '__fixtures__', `release-${release.commit}`, name);
const fixture = (release: Release, name: string) => readFileSync(fixturePath(release, name), 'utf8');
const secretKeyOf = (release: Release) => fixture(release, 'secret-key.txt').trim();
const knownOf = (release: Release) => ({
  sessionHashes: ['session-hash-1', 'session-hash-2', 'session-hash-3'],
  settingKeys: ['theme', 'limits'],
  invitedEmails: ['new@example.com', 'user@example.com'],
  pendingStateHashes: ['pending-1'],
  mcpUserCredentials: release.mcpUserCredentials,
});
const databases = schemaTestDatabases('upgrade');

/** What the release read back itself: nothing after it changes what is read. */
function expected(release: Release, name: string): unknown {
  return JSON.parse(fixture(release, name));
}

/** The tables of a restored fixture with no row: none, or the test would not prove every row survives. */
function emptyTables(counts: readonly { table: string; rows: number }[]): string[] {
  assert.ok(counts.length >= 24, `the fixture has storage's tables (${counts.length})`);
  return counts.filter((count) => count.rows === 0).map((count) => count.table);
}

/** Writes after the upgrade work too: a new persona, and the running turn ends with its packets kept. */
async function writeAfterUpgrade(storage: Storage): Promise<void> {
  const persona = await storage.personas.create({ name: 'After the upgrade' });
  assert.equal((await storage.personas.get(persona.id))?.name, 'After the upgrade');
  const [running] = await storage.chats.listRunningTurns();
  assert.ok(running);
  await storage.chats.appendPackets({ chatId: running.chatId, turn: running.index, packets: [{ n: 2 }] });
  await storage.chats.finishTurn({ chatId: running.chatId, turn: running.index, status: 'completed' });
  const packets = await storage.chats.listPackets({ chatId: running.chatId, turn: running.index });
  assert.deepEqual(
    packets.map((packet) => packet.sequence),
    [1, 2],
  );
  const [invitation] = await storage.organizations.listInvitations('user@example.com');
  assert.equal((await storage.organizations.takeInvitation(invitation?.id ?? ''))?.role, 'admin');
  const again = await storage.organizations.invite({
    organizationId: 'default',
    email: 'user@example.com',
    role: 'member',
    invitedBy: null,
  });
  assert.deepEqual(await storage.organizations.listInvitations('user@example.com'), [again]);
}

for (const release of releases) {
  test(`a SQLite file of release ${release.commit} opens, migrates and reads back every row`, async () => {
    const secretKey = secretKeyOf(release);
    const path = databases.file(`release-${release.commit}.db`);
    copyFileSync(fixturePath(release, 'sqlite.db'), path);
    const database = new DatabaseSync(path);
    const tables = database
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'sqlite_sequence'")
      .all() as { name: string }[];
    const counts = tables.map(({ name }) => ({
      table: name,
      rows: (database.prepare(`SELECT COUNT(*) AS n FROM "${name}"`).get() as { n: number }).n,
    }));
    assert.deepEqual(emptyTables(counts), []);
    database.close();
    const storage = await openSqlite(path, secretKey);
    assert.deepEqual(
      JSON.parse(JSON.stringify(await readBackEverything(storage, knownOf(release)))),
      expected(release, 'expected-sqlite.json'),
    );
    await writeAfterUpgrade(storage);
    await storage.close();
    const fresh = await freshSqliteSchema(databases.file(`fresh-${release.commit}.db`), secretKey);
    assert.deepEqual(sqliteSchemaOf(path), fresh);
  });
}

for (const release of releases) {
  test(`a PostgreSQL database of release ${release.commit} opens, migrates and reads back every row`, async () => {
    const secretKey = secretKeyOf(release);
    const cluster = databases.cluster();
    const url = await cluster.createDatabase();
    execFileSync(join(cluster.binDirectory, 'pg_restore'), [
      '--no-owner',
      '--no-privileges',
      '--exit-on-error',
      '-d',
      url,
      fixturePath(release, 'postgres.dump'),
    ]);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows: tables } = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
    );
    const counts = [];
    for (const { table_name: table } of tables) {
      const { rows } = await client.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM public."${table}"`);
      counts.push({ table, rows: rows[0]?.n ?? 0 });
    }
    assert.deepEqual(emptyTables(counts), []);
    await client.end();
    const storage = await openPostgres(url, secretKey);
    assert.deepEqual(
      JSON.parse(JSON.stringify(await readBackEverything(storage, knownOf(release)))),
      expected(release, 'expected-postgres.json'),
    );
    await writeAfterUpgrade(storage);
    await storage.close();
    assert.deepEqual(await postgresSchemaAsJson(url), await freshPostgresSchema(cluster, secretKey));
  });
}
